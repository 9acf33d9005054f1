"""UI page loads through the Flask app (no network), with the statements each page runs."""

from __future__ import annotations

from officegym.episodes import Episode

from .timing import Bench, Figure, count_queries, measure


def page_urls(episode: Episode) -> dict[str, str]:
    """The pages timed; the same records as the tool calls (see tools.tool_calls)."""
    base = f"/e/{episode.id}"
    return {"channel page": f"{base}/chat/c/general", "people list": f"{base}/org/?q=a",
            "search page": f"{base}/chat/search?q=the",
            "CRM opportunity list": f"{base}/crm/opportunities?stage=open",
            "CRM opportunity page": f"{base}/crm/opportunities/1", "CRM account page": f"{base}/crm/accounts/1",
            "CRM pipeline report": f"{base}/crm/reports/pipeline?group_by=owner",
            "tickets board": f"{base}/tickets/projects/ENG/board", "tickets ticket page": f"{base}/tickets/IT-7",
            "tickets search page": f"{base}/tickets/search?q=project%20%3D%20IT%20ORDER%20BY%20priority%20DESC"}


def bench_pages(bench: Bench) -> list[Figure]:
    """Each page loaded through the Flask test client; at medium and large, in turn with the same
    page of a small episode (the row's `small_p50`)."""
    from officegym.web import create_app

    episode = bench.store.create(scale=bench.scale)
    small = bench.store.create(scale="small") if bench.paired else None
    client = create_app(bench.store).test_client()
    figures = []
    for name, url in page_urls(episode).items():
        load = _loader(client, url)
        baseline = _loader(client, page_urls(small)[name]) if small else None
        figure = measure(f"UI {name}", load, bench.runs(100), target=bench.target("p50 <= 30 ms"), kind="page",
                         baseline=baseline)
        figure.queries = count_queries(episode.engine, load)
        figures.append(figure)
    for made in (episode, small):
        if made is not None:
            bench.store.delete(made.id)
    return figures


def _loader(client, url: str):
    """A call that loads one page and insists on a 200."""
    def load():
        response = client.get(url)
        assert response.status_code == 200, (url, response.status_code)
    return load
