"""The contents of the seeded workbooks, drafted from the other apps' records with the formulas a
spreadsheet user would write: totals are SUMs, summaries are SUMIFS/COUNTIFS over the data rows,
the headcount plan counts the People tab, the rota looks up this week with TODAY().

Each builder returns a WorkbookDraft, or None when the world lacks its source (no CRM deals, no
on-call groups). Rows are always sorted, so the same seed drafts the same cells.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from random import Random

from officegym.apps.crm.models import OPEN_STAGES, STAGE_PROBABILITY

from . import sheets_vocab as sv
from . import vocab
from .chat_text import history_end
from .crm_model import Crm, business_time
from .org import Org, PersonRec
from .sheets_model import SheetDraft, WorkbookDraft

MONEY, WHOLE_MONEY, PERCENT, DAY, COUNT = "$#,##0.00", "$#,##0", "0%", "yyyy-mm-dd", "#,##0"
RANKS = {"ceo": 0, "head": 0, "lead": 1, "member": 2}


def dated_draft(org: Org, rng: Random, key: str, title: str, owner: PersonRec,
                created: tuple[datetime, datetime], updated: tuple[datetime, datetime]) -> WorkbookDraft:
    """A draft created and last changed within the given windows, never before its owner joined
    nor after the end of the seeded history."""
    end = history_end(org.now)
    start = max(created[0], owner.since + timedelta(days=1))
    made = business_time(rng, min(start, end), min(max(start, created[1]), end))
    changed = business_time(rng, max(made, updated[0]), min(max(made, updated[1]), end))
    description = sv.DESCRIPTIONS.get(key, "").format(year=org.now.year)
    return WorkbookDraft(key, title, description, owner.id, made, max(made, changed))


def _departments(org: Org) -> list[str]:
    """The company's departments in directory order."""
    return [d["name"] for d in vocab.DEPARTMENTS if d["name"] in org.heads]


def _round(value: float, step: int) -> int:
    return max(step, int(round(value / step)) * step)


def _quarter(day: date) -> str:
    """The label the Pipeline's quarter formula computes: Q2 2026."""
    return f"Q{(day.month - 1) // 3 + 1} {day.year}"


def forecast(org: Org, crm: Crm | None, rng: Random) -> WorkbookDraft | None:
    """The sales forecast: every open deal weighted by its stage's probability, summaries per quarter
    and stage, and this year's wins; owned by the head of Sales, shared with the sales team."""
    if crm is None or not crm.deals:
        return None
    year, sales = org.now.year, org.in_dept("Sales")
    leads = sorted((p for p in sales if p.rank == "lead"), key=lambda p: (p.since, p.id))
    owner = org.person(org.heads["Sales"]) if "Sales" in org.heads else (leads[0] if leads else org.ceo)
    end = history_end(org.now)
    book = dated_draft(org, rng, "forecast", f"FY{year} Sales Forecast", owner,  # refreshed on Fridays
                       (datetime(year, 1, 5, 9), datetime(year, 1, 9, 17)), (end - timedelta(hours=9), end))
    book.share([p.id for p in sales if p.rank == "lead" or org.area_of(p) == "Sales Operations"], "editor")
    book.share([p.id for p in sales] + [org.ceo.id], "viewer")

    pipeline, summary, closed, stages = (book.tab(name, 1) for name in ("Pipeline", "Summary", "Closed Won", "Stages"))
    stages.put_row(0, ["Stage", "Probability"])
    for n, stage in enumerate(OPEN_STAGES, start=1):
        stages.put_row(n, [stage, STAGE_PROBABILITY[stage] / 100], ("", PERCENT))
    probability_table = f"Stages!$A$2:$B${len(OPEN_STAGES) + 1}"

    open_deals = sorted((d for d in crm.deals if d.stage in OPEN_STAGES), key=lambda d: (d.close_date, d.id))
    pipeline.put_row(0, ["Account", "Deal", "Owner", "Stage", "Amount", "Probability", "Expected close",
                         "Weighted", "Quarter"])
    for r, deal in enumerate(open_deals, start=2):
        pipeline.put_row(r - 1, [deal.account.name, deal.name, org.person(deal.owner_id).name, deal.stage,
                                 deal.amount_cents / 100, f"=VLOOKUP(D{r},{probability_table},2,FALSE)",
                                 deal.close_date, f"=E{r}*F{r}", f'="Q"&ROUNDUP(MONTH(G{r})/3,0)&" "&YEAR(G{r})'],
                         ("", "", "", "", MONEY, PERCENT, DAY, MONEY, ""))
    last = max(2, len(open_deals) + 1)
    book.names += [("PipelineAmount", "Pipeline", f"$E$2:$E${last}"),
                   ("PipelineWeighted", "Pipeline", f"$H$2:$H${last}")]

    won = sorted((d for d in crm.deals if d.stage == "Closed Won" and d.close_date.year == year),
                 key=lambda d: (d.close_date, d.id))
    closed.put_row(0, ["Account", "Deal", "Owner", "Amount", "Closed on"])
    for r, deal in enumerate(won, start=1):
        closed.put_row(r, [deal.account.name, deal.name, org.person(deal.owner_id).name, deal.amount_cents / 100,
                           deal.close_date], ("", "", "", MONEY, DAY))
    won_total = len(won) + 3  # after a blank row, so that an empty list never sums its own total
    closed.put_row(won_total - 1, ["Total", f"=COUNTA(B2:B{won_total - 1})", None,
                                   f"=SUM(D2:D{won_total - 1})"], ("", COUNT, "", MONEY))
    _forecast_summary(summary, open_deals, year, last, won_total)
    return book


def _forecast_summary(summary: SheetDraft, open_deals, year: int, last: int, won_total: int) -> None:
    """Totals per quarter and per stage with SUMIFS/COUNTIFS over the Pipeline, then key figures."""
    col = {c: f"Pipeline!${c}$2:${c}${last}" for c in "BDEGHI"}
    quarters = sorted({(d.close_date.year, (d.close_date.month - 1) // 3 + 1) for d in open_deals}
                      | {(year, q) for q in range(1, 5)})
    summary.put_row(0, ["Quarter", "Deals", "Amount", "Weighted"])
    for r, (y, q) in enumerate(quarters, start=2):
        summary.put_row(r - 1, [f"Q{q} {y}", f"=COUNTIFS({col['I']},A{r})", f"=SUMIFS({col['E']},{col['I']},A{r})",
                                f"=SUMIFS({col['H']},{col['I']},A{r})"], ("", COUNT, MONEY, MONEY))
    total = len(quarters) + 2
    summary.put_row(total - 1, ["Total", f"=SUM(B2:B{total - 1})", f"=SUM(C2:C{total - 1})",
                                f"=SUM(D2:D{total - 1})"], ("", COUNT, MONEY, MONEY))
    top = total + 2
    summary.put_row(top - 1, ["Stage", "Probability", "Deals", "Amount", "Weighted"])
    for r, stage in enumerate(OPEN_STAGES, start=top + 1):
        summary.put_row(r - 1, [stage, f"=VLOOKUP(A{r},Stages!$A$2:$B${len(OPEN_STAGES) + 1},2,FALSE)",
                                f"=COUNTIFS({col['D']},A{r})", f"=SUMIFS({col['E']},{col['D']},A{r})",
                                f"=SUMIFS({col['H']},{col['D']},A{r})"], ("", PERCENT, COUNT, MONEY, MONEY))
    bottom = top + len(OPEN_STAGES) + 1
    summary.put_row(bottom - 1, ["Total", None, f"=SUM(C{top + 1}:C{bottom - 1})", f"=SUM(D{top + 1}:D{bottom - 1})",
                                 f"=SUM(E{top + 1}:E{bottom - 1})"], ("", "", COUNT, MONEY, MONEY))
    k = bottom + 2  # key figures, each formula pointing at the rows above it by label
    rows = {label: k + i for i, label in enumerate(("open", "weighted", "won", "forecast", "count", "late", "max"))}
    figures = [("Open pipeline", "=SUM(PipelineAmount)", MONEY),
               ("Weighted pipeline", "=SUM(PipelineWeighted)", MONEY),
               (f"Won in {year}", f"='Closed Won'!D{won_total}", MONEY),
               (f"Forecast {year} (won + weighted)", f"=B{rows['weighted']}+B{rows['won']}", MONEY),
               ("Open deals", f"=COUNTA({col['B']})", COUNT),
               ("Past their expected close", f'=COUNTIFS({col["G"]},"<"&TODAY())', COUNT)]
    if open_deals:  # amounts are unique in the CRM, so the largest deal has one account
        figures += [("Largest open deal", "=MAX(PipelineAmount)", MONEY),
                    ("Largest open deal's account",
                     f"=INDEX(Pipeline!$A$2:$A${last},MATCH(B{rows['max']},PipelineAmount,0))", "")]
    for r, (label, formula, fmt) in enumerate(figures, start=k):
        summary.put_row(r - 1, [label, formula], ("", fmt))


def budget(org: Org, rng: Random) -> WorkbookDraft:
    """Department budgets: real headcounts, plausible salaries and spend, formulas for the costs;
    owned by the head of Finance (the CEO without one), shown to every department head."""
    year, depts = org.now.year, _departments(org)
    owner = org.person(org.heads.get("Finance", org.ceo.id))
    end, newest = history_end(org.now), max(p.since for p in org.people)
    book = dated_draft(org, rng, "budget", f"Department Budgets {year}", owner,  # approved in December,
                       (datetime(year - 1, 12, 1, 9), datetime(year - 1, 12, 12, 17)),  # headcount refreshed since
                       (max(newest, end - timedelta(days=12)), end))
    planners = [pid for t in org.teams if t.area == "Financial Planning" for pid in t.member_ids]
    book.share(planners, "editor")
    book.share([org.heads[d] for d in depts], "viewer")

    sheet = book.tab("Budget", 1, 1)
    money = ("", "", COUNT) + (WHOLE_MONEY,) * 7
    sheet.put_row(0, ["Department", "Head", "Headcount", "Avg salary", "Salary cost", "Software", "Travel", "Other",
                      "Total", "Cost per head"])
    for r, dept in enumerate(depts, start=2):
        salary, software, travel, other = sv.BUDGET_PROFILES.get(dept, sv.DEFAULT_PROFILE)
        size = len(org.in_dept(dept))
        spend = [_round(per_head * size * rng.uniform(0.85, 1.15), 500) for per_head in (software, travel, other)]
        average = _round(salary * rng.uniform(0.96, 1.04), 500)
        sheet.put_row(r - 1, [dept, org.person(org.heads[dept]).name, size, average, f"=C{r}*D{r}*(1+Assumptions!$B$2)",
                              *spend, f"=SUM(E{r}:H{r})", f"=I{r}/C{r}"], money)
    t, n = len(depts) + 2, len(depts) + 1
    sheet.put_row(t - 1, ["Total", None, f"=SUM(C2:C{n})", f"=ROUND(SUMPRODUCT(C2:C{n},D2:D{n})/C{t},0)",
                          *[f"=SUM({c}2:{c}{n})" for c in "EFGHI"], f"=I{t}/C{t}"], money)

    quarters = book.tab("By quarter", 1, 1)
    quarters.put_row(0, ["Department", "Q1", "Q2", "Q3", "Q4", "Year"])
    for r in range(2, t):  # the last quarter takes the rounding, so the year adds up exactly
        quarters.put_row(r - 1, [f"=Budget!A{r}", *[f"=ROUND(Budget!$I{r}/4,0)"] * 3, f"=Budget!$I{r}-SUM(B{r}:D{r})",
                                 f"=SUM(B{r}:E{r})"], ("",) + (WHOLE_MONEY,) * 5)
    quarters.put_row(t - 1, ["Total", *[f"=SUM({c}2:{c}{n})" for c in "BCDEF"]], ("",) + (WHOLE_MONEY,) * 5)

    notes = book.tab("Assumptions", 1)
    notes.put_row(0, ["Assumption", "Value"])
    notes.put_row(1, ["Benefits and payroll taxes", sv.BENEFITS_LOAD], ("", PERCENT))
    notes.put_row(2, ["Fiscal year", year])
    notes.put_row(3, ["Headcount as of", book.updated_at.date()], ("", DAY))
    notes.put_row(4, ["Salary cost", "Headcount x average salary x (1 + benefits)"])
    return book


def headcount_plan(org: Org, rng: Random) -> WorkbookDraft:
    """Everyone on staff and the hires planned per department and quarter; owned by the head of
    People (the CEO without one), edited by People, shown to every department head."""
    year, depts = org.now.year, _departments(org)
    owner = org.person(org.heads.get("People", org.ceo.id))
    end = history_end(org.now)
    newest = max(p.since for p in org.people)  # the People tab lists everyone, the newest hire included
    book = dated_draft(org, rng, "headcount", f"Headcount Plan {year}", owner, (datetime(year, 1, 6, 9),
                       datetime(year, 1, 16, 17)), (max(newest, end - timedelta(days=10)), end))
    book.share([p.id for p in org.in_dept("People")], "editor")
    book.share([org.heads[d] for d in depts], "viewer")

    people = book.tab("People", 1)
    people.put_row(0, ["Name", "Department", "Title", "Location", "Team", "Manager", "Start date"])
    order = {d: i for i, d in enumerate(depts)}
    staff = sorted(org.people, key=lambda p: (order[p.dept], RANKS[p.rank], p.name, p.id))
    for r, p in enumerate(staff, start=1):
        manager = org.person(p.manager_id).name if p.manager_id else None
        people.put_row(r, [p.name, p.dept, p.title, p.location, p.team, manager, p.since.date()],
                       ("",) * 6 + (DAY,))

    plan = book.tab("Plan", 1, 1)
    plan.put_row(0, ["Department", "Today", "Q1 hires", "Q2 hires", "Q3 hires", "Q4 hires", "End of year", "Growth"])
    formats = ("", COUNT, COUNT, COUNT, COUNT, COUNT, COUNT, PERCENT)
    for r, dept in enumerate(depts, start=2):
        size = len(org.in_dept(dept))
        hires = round(size * sv.GROWTH.get(dept, 0.15) * rng.uniform(0.7, 1.3))
        picks = rng.choices(range(4), weights=sv.QUARTER_WEIGHTS, k=hires)
        plan.put_row(r - 1, [dept, f"=COUNTIF(People!B:B,A{r})", *[picks.count(q) for q in range(4)],
                             f"=B{r}+SUM(C{r}:F{r})", f"=G{r}/B{r}-1"], formats)
    t, n = len(depts) + 2, len(depts) + 1
    plan.put_row(t - 1, ["Total", *[f"=SUM({c}2:{c}{n})" for c in "BCDEFG"], f"=G{t}/B{t}-1"], formats)
    return book


def personal(spec, org: Org, rng: Random) -> list[WorkbookDraft]:
    """A few private workbooks (expense reports, small budgets) with titles like the shared ones',
    so that finding a workbook by name needs care; one per 15 people, at least 2, at most 100 (one per
    4 people, with longer expense lists, in a world with `workbooks`)."""
    year = org.now.year
    start, end = datetime(year, 1, 2, 9), history_end(org.now)
    staff = [p for p in org.people if p.rank in ("lead", "member") and p.since < start]
    many = spec.workbooks
    count = max(2, spec.people // 4) if many else min(100, max(2, spec.people // 15))
    owners = sorted(rng.sample(staff, min(len(staff), count)), key=lambda p: p.id)
    kinds = [kind[2] for kind in sv.PERSONAL_KINDS]
    drafts = []
    for owner in owners:
        kind = rng.choices(range(len(kinds)), weights=kinds)[0]
        pattern, description, _weight = sv.PERSONAL_KINDS[kind]
        items = []
        for _ in range(rng.randint(8, 40) if many else rng.randint(4, 8)):
            category = rng.choice(sv.KIND_CATEGORIES[kind])
            text, low, high = rng.choice(sv.EXPENSE_ITEMS[category])
            spent = business_time(rng, start, end - timedelta(days=1))
            items.append((spent.date(), category, text.format(city=rng.choice(sv.CITIES)),
                          round(rng.uniform(low, high), 2)))
        items.sort()
        first, last = (datetime.combine(items[k][0], datetime.min.time()) for k in (0, -1))
        made = business_time(rng, first + timedelta(hours=9), first + timedelta(hours=17))  # with the first receipt
        changed = business_time(rng, last + timedelta(hours=9), min(end, last + timedelta(days=2, hours=17)))
        book = WorkbookDraft(f"personal:{owner.id}", pattern.format(name=owner.name), description, owner.id, made,
                             max(made, changed))
        sheet = book.tab("Expenses" if kind == 0 else "Costs", 1)
        sheet.put_row(0, ["Date", "Category", "Description", "Amount", None, "Category", "Total"])
        for r, item in enumerate(items, start=1):
            sheet.put_row(r, list(item), (DAY, "", "", MONEY))
        n = len(items) + 1
        sheet.put_row(n + 1, ["Total", None, None, f"=SUM(D2:D{n})"], ("", "", "", MONEY))
        for r, category in enumerate(sorted({item[1] for item in items}), start=2):
            sheet.put(r - 1, 5, category)
            sheet.put(r - 1, 6, f"=SUMIF($B$2:$B${n},F{r},$D$2:$D${n})", MONEY)
        drafts.append(book)
    return drafts
