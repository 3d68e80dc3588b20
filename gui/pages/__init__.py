"""The main window's pages: Ask, Compare, History and Lab."""
