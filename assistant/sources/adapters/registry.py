"""The bundled domains by name and how one is built into its knowledge base (``build_domain``)."""

from __future__ import annotations

from collections.abc import Callable, Generator

from assistant import paths
from assistant.errors import DomainNotFoundError
from assistant.progress import Progress
from assistant.store import DomainData, new_knowledge_base, write_domain


def adapters() -> dict[str, Callable[[], DomainData]]:
    """Each bundled domain's loader (imported here, when a domain is built: they read large files)."""
    import assistant.sources.adapters.banking77 as banking77
    import assistant.sources.adapters.clinc150 as clinc150
    import assistant.sources.adapters.cub as cub
    import assistant.sources.adapters.stackfaq as stackfaq
    from assistant.sources.adapters.out_of_scope_queries import with_out_of_scope

    return {
        "birds": cub.load,
        "faq": with_out_of_scope("faq", stackfaq.load),
        "banking": with_out_of_scope("banking", banking77.load),
        "clinc": clinc150.load,
    }


BUNDLED_DOMAINS: dict[str, str] = {
    "birds": "CUB-200-2011 bird species: 200 labels, attribute questions from crowd percentages, captions as queries",
    "faq": "StackFAQ: 125 FAQs with answers, crowd paraphrases as queries, induced tags",
    "banking": "BANKING77: 77 banking intents, customer queries, induced tags",
    "clinc": "CLINC150: 150 assistant intents in 10 areas (an area question), out-of-scope queries, induced tags",
}


def build_domain(name: str) -> Generator[Progress, None, dict]:
    """Build (or refresh) the bundled domain ``name``; yields progress, returns the store's stats."""
    loaders = adapters()
    if name not in loaders:
        raise DomainNotFoundError(
            f"no bundled domain {name!r}: choose one of {', '.join(sorted(loaders))}, or make one from your own FAQ "
            "with `clarify domain create NAME --from FILE`"
        )
    yield Progress(0, 3, f"reading the bundled {name} files")
    # opened first: a damaged file or an unusable CLARIFY_HOME stops us before work; a first build is written
    # under a temporary name and appears (renamed into place) only once it is complete
    with new_knowledge_base(name) as kb:
        data = loaders[name]()
        yield Progress(1, 3, f"writing {len(data.labels)} labels and {len(data.questions)} questions")
        write_domain(kb, data)
        yield Progress(2, 3, "checking the result")
        kb.load_domain()  # fails loudly if what was written is inconsistent
        stats = {**kb.stats(), "path": str(paths.domain_db_path(name))}  # where it is once renamed into place
    yield Progress(3, 3, f"built {name}")
    return stats
