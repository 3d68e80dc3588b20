"""clarification"""
