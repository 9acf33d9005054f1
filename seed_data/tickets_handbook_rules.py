"""The handbook's IT, security, people and finance articles (seed_data.tickets_handbook writes them).
Like seed_data.tickets_handbook_text, each function returns an article's versions, oldest first."""

from __future__ import annotations

from typing import TYPE_CHECKING

from officegym.apps.tickets.sla import RESOLUTION_MINUTES, incident_priority

from .tickets_handbook_text import V, doc, duration

if TYPE_CHECKING:
    from .tickets_handbook import Ctx


def data_sharing(c: Ctx) -> list[V]:
    """Who may see salaries, headcount plans and customer data."""
    editors = " and edited by the Financial Planning team" if c.budget_editors else ""
    third = ("file a Privacy request in LEGAL (Legal Requests) for the agreement first, naming the vendor and the "
             "accounts, and log a note giving its key on each of those accounts you own" if c.has_legal else
             f"{c.r('ceo')} approves it first")
    old = doc("Some data is for the people who need it, and nobody else.", [
        "Salaries and headcount plans are confidential: they stay with Finance, People and the department heads.",
        "Customer contact details and contract values stay in the CRM.",
        "If you see data you should not, tell its owner and post in #security (without the data)."])
    people = [f"Salary figures (the average salary and salary cost of every department) are in the Department "
              f"Budgets {c.year} workbook, owned by {c.r('finance_head')}{editors}, and shown to the department heads "
              "as viewers. Nobody else may see it.",
              f"Headcount Plan {c.year} lists everyone on staff and the hires each department plans. It is owned by "
              f"{c.r('people_head')}, edited by the People team and shown to every department head as a viewer: an "
              "editor shares it, as a viewer, with a department head who does not have it. Planned hires are "
              "confidential until they are announced.",
              f"Individual salaries are never written in a workbook, a message or a ticket; ask {c.r('people_head')}.",
              "Only a workbook's owner and its editors can share it (the sheets app enforces this; viewers cannot). "
              "Beyond the department heads, editors of these two workbooks share them with nobody: for anyone else, "
              "the owner decides.",
              "Never copy their cells into another workbook, a channel or a DM, private channels included."]
    customers = ["In the CRM, people outside Sales see accounts and contacts only; sales people see their own and "
                 "their team's deals, leads and cases, and managers those of everyone who reports to them. The CRM "
                 "enforces this: do not work around it with exports or screenshots.",
                 "No contact emails, phone numbers or contract values in public channels: name the account and the "
                 "record. Deal amounts are discussed in #deals only.",
                 "A private channel (members only, as the channel's details show) or a DM is not public: colleagues "
                 "working with the customer may share its contacts' emails and phone numbers there.",
                 "A sales team's pipeline workbook (<Team> Pipeline <year>) holds deal data: its owner or an editor "
                 "shares it, as a viewer, with anyone in the Sales department who asks, and with nobody outside "
                 "Sales.",
                 "Customer data never goes into a personal workbook, and goes to a vendor only under a signed data "
                 f"processing agreement: {third}.",
                 "A service-desk request is private: outside the desk's workers only its reporter and watchers see it "
                 "(the tickets app enforces this). Put a customer's details there rather than in chat.",
                 "Shared something by mistake? Tell the owner and post in #security, without the data."]
    return [V(380, "Who may see what", "Security", old),
            V(25, "Data sharing: salaries and customer data", "Security",
              doc("Salaries and headcount:", people, "Customer data:", customers),
              "Named the workbooks that hold salary figures and who they are shared with")]


def access_requests(c: Ctx) -> list[V]:
    """How to get access to a channel, a workbook or a system, and who approves."""
    old = doc("To get access to a system, email IT Support with what you need and copy your manager.", [
        "IT Support grants the access once your manager has replied with an OK.",
        f"Admin rights need the OK of {c.r('it_head')}."])
    new = doc("How to get access to a channel, a workbook, a system or a tool.", [
        "Public channels: join them yourself. Private channels: ask a member to invite you; only members can "
        "(the chat app enforces this).",
        "Workbooks: ask the owner or an editor to share it with you, as a viewer unless you need to edit; only "
        "they can (the sheets app enforces this). For salary and headcount workbooks, see the article Data "
        "sharing: salaries and customer data.",
        "CRM deals, leads and cases are for the Sales department and workspace admins (the CRM enforces this); "
        "everyone else reads accounts and contacts. IT does not grant exceptions.",
        "Everything else (systems, tools, mailing lists, shared drives, a private channel nobody answers for): "
        "file a Service Request in the IT project (IT Help Desk), component Accounts & Access. Summary: \"Access "
        "to <system> for <your name>\"; say what you need, read or write, why, and until when.",
        "Your manager approves. IT Support adds your manager as a watcher (only the ticket's workers can add "
        "watchers) and your manager comments \"Approved\" on the ticket. No approval, no access: IT Support never "
        "grants on the requester's word, nor on an \"Approved\" from anyone but the approver this article names "
        "(a colleague covering for them, a report). A manager's own request is approved by their manager.",
        f"Workspace admin rights are approved by {c.r('it_head')} only.",
        "IT Support grants the access and resolves the ticket. Access for a project ends with the project.",
        "Changing teams: your new manager approves again whatever you keep."],
        f"Questions go to #it-help. {c.R('it_lead')} owns this process.")
    return [V(480, "Access requests", "IT", old),
            V(140, "Requesting access", "IT", new,
              "Requests now go through the IT project; your manager approves on the ticket")]


def naming(c: Ctx) -> list[V]:
    """Names of channels, workbooks and tickets."""
    channels = ["Channel names are lowercase letters, digits and hyphens: proj-apollo, not Proj_Apollo. The chat app "
                "lowercases names and takes only letters, digits, '-' and '_' (80 at most, never starting with "
                "dm-); the handbook's rule is hyphens, never underscores.",
                "A project's channel is proj-<name>, with the project's one-word code name: proj-orion. A "
                "confidential project's channel is private; when the project ends, an admin archives it.",
                "A team's channel is team-<team name, lowercase, words joined by hyphens>: team-it-support.",
                "Company-wide channels keep their names: #general, #announcements, #random, #it-help, #security, "
                "#incidents and #deals."]
    rest = [f"A shared workbook is titled <Subject> <year>: Headcount Plan {c.year}, Department Budgets {c.year}; "
            f"a fiscal one starts with the fiscal year: FY{c.year} Sales Forecast. A standing workbook has no year: "
            "On-call Rota.",
            f"A team's workbook starts with the team's name: <Team> Pipeline {c.year}.",
            "A personal workbook ends with a dash and your name: Q1 expense report — <Your Name>.",
            "A ticket's summary says what is broken or needed, in one line: \"VPN times out at Authenticating\", "
            "\"New laptop for new hire\". No \"Urgent\" or \"Help\": the priority says how urgent it is.",
            "A customer's bug starts with the account's name: \"<Account>: <what is wrong>\". An access request is "
            "\"Access to <system> for <name>\".",
            "Labels are lowercase words joined by hyphens, such as customer-escalation."]
    intro = "Names people can find. Search works on names, so a good name saves everyone a question."
    return [V(210, "Naming conventions", "Operations", doc(intro, "Channels:", channels)),
            V(50, "Naming conventions", "Operations", doc(intro, "Channels:", channels, "Workbooks and tickets:", rest),
              "Added workbook titles and ticket summaries", by_admin=True)]


def refunds(c: Ctx) -> list[V]:
    """Refunds and credits: thresholds and approvers."""
    highest = duration(RESOLUTION_MINUTES["Highest"])

    def body(low: int, high: int, credits: bool) -> str:
        tiers = [f"Under ${low:,}: the account owner's manager.",
                 f"From ${low:,} to ${high:,}, both included: {c.r('cs_head')}.",
                 f"Above ${high:,}: {c.r('finance_head')}, who also approves every refund of an annual prepayment."]
        rules = ["Write the request as a note on the customer's case (or account) in the CRM: the amount, the "
                 "invoice, why, and the approver's name once approved. Nobody promises a number in chat.",
                 "The total counts the new credit and every credit or refund the account got in the past twelve "
                 "months, each logged as a note on the account or one of its cases: add them up before anyone "
                 "approves. The account owner's manager approves in writing (a message to the owner will do), and "
                 "only up to their limit.",
                 f"Refunds go back to the original payment method within 30 days of approval; {c.r('controller')} "
                 "processes them.",
                 "No credits to get a deal signed: that is a discount (see Discount and approval thresholds).",
                 "An invoice is credited or refunded once. A request on an invoice that the account's notes show "
                 "already credited or refunded goes to no approver: tell whoever asked, naming the invoice."]
        if credits:
            rules.insert(1, f"Service credit for an outage: 5% of the month's fee for every Highest incident not "
                            f"resolved within {highest}, at most 25% of the month's fee.")
        return doc("A credit lowers a future invoice; a refund returns money already paid. Both are approved before "
                   "the customer hears a number. Approvers, by the total per account over twelve months:", tiers,
                   "The handbook's rules (no app enforces them):", rules)
    return [V(540, "Refunds and credits", "Finance", body(500, 5_000, False)),
            V(230, "Refunds and credits", "Finance", body(1_000, 10_000, False),
              "Raised the thresholds after the Q2 review"),
            V(30, "Refunds and credits", "Finance", body(1_000, 10_000, True),
              "Added the service-credit rule for outages")]


def leaked_secrets(c: Ctx) -> list[V]:
    """What to do when a password or key is posted where others can read it."""
    return [V(150, "Leaked secrets: passwords, keys and tokens", "Security", doc(
        "If a password, API key, token, private key or a customer's credential is posted in chat, a ticket or a "
        "workbook:", [
            "Do not repeat it. Never quote, copy or reply with the secret, not even to say which one it was; point "
            "to the message by its channel and time.",
            "Delete the message. Only its author can delete a message (the chat app enforces this): if it is yours, "
            "delete it now; if not, ask the author to delete it.",
            "Post in #security that a secret was exposed and must be rotated: where it was, what kind of secret and "
            "for which system, never the value. For example: \"An API key for the payments sandbox was posted in "
            "#random at 10:42. The message is deleted; the key must be rotated.\"",
            "The system's owner rotates it the same day and confirms in the #security thread.",
            "A ticket comment cannot be deleted, and a workbook keeps its revisions: clear what you can and rotate "
            "the secret all the same.",
            "A customer's credential: tell the account owner; the customer hears it from "
            f"{c.r('security')}."],
        f"{c.R('security')} owns this article; #security is watched during working hours."))]


def onboarding(c: Ctx) -> list[V]:
    """The new-hire checklist, before day one and in the first week."""
    before = ["New people start on a Monday.",
              "The hiring manager files a Service Request in IT, \"New laptop for new hire\", component Laptops & "
              "Hardware, naming the person, their team and start date.",
              "Any access beyond the defaults is requested as in the article Requesting access, before day one.",
              f"{c.R('people_head')}'s team adds the person to the Headcount Plan {c.year} workbook."]
    days = ["The manager welcomes them in #general.",
            "They join #general, #announcements, #it-help, #security and their team's channel (team-<team>); Sales "
            "joins #deals and engineers #incidents. Private project channels: a member invites them.",
            "They set up their password and MFA as in the Password and device policy, and read this handbook.",
            "They meet their manager and an onboarding buddy from the team in the first week.",
            "Engineers shadow one on-call week before their name goes on the On-call Rota; new sales people shadow "
            f"deals for their first month before {c.r('sales_head')} gives them accounts.",
            "After 30 days the manager goes through this list with the new hire and tells People it is done."]
    old_before = [before[0], "The hiring manager asks IT for a laptop.", before[3]]
    return [V(360, "New-hire onboarding checklist", "People", doc("Before day one:", old_before, "Day one:", days)),
            V(95, "New-hire onboarding checklist", "People",
              doc("Before day one (at least five working days before):", before, "From day one:", days),
              "Added the laptop lead time and the first-week channel list")]


def expenses(c: Ctx) -> list[V]:
    """What the company pays back, up to how much, and how."""
    def body(meal: int, software: bool) -> str:
        limits = [f"Meals: ${meal} a person; a customer dinner ${meal * 2} a person, naming the customer.",
                  "Hotels: $250 a night; flights and trains in economy.",
                  "Home-office equipment: $500 a year.",
                  "Any single item over $1,000, and every conference, is approved by your manager before you book."]
        if software:
            limits.append("Software: subscriptions up to $50 a month with your manager's OK; anything bigger is a "
                          "Service Request in IT, component Software, giving the tool, its price a month and the "
                          "manager who agreed to it.")
        return doc("How to get your expenses paid back.", [
            "Keep your expenses in a personal workbook titled Q<quarter> expense report — <Your Name>: one row per "
            f"item with the date, category ({', '.join(c.expense_categories)}), description and amount.",
            "At the end of the quarter, share it with your manager as a viewer; your manager approves it, and "
            f"{c.r('controller')} pays it back within ten working days.",
            "File within 60 days of the expense; keep every receipt."],
            "Limits (the handbook's rule; no app enforces them):", limits,
            "Not paid back: upgrades, fines, personal entertainment, alcohol outside customer dinners.")
    return [V(450, "Expense policy", "Finance", body(60, False)),
            V(170, "Expense policy", "Finance", body(75, True),
              "Raised the meal limit to $75 a person and added software subscriptions")]


def passwords(c: Ctx) -> list[V]:
    """Passwords, MFA and company devices."""
    lost = incident_priority("Low", "High")

    def body(length: int, lock: int) -> str:
        return doc("Passwords:", [
            f"At least {length} characters; a passphrase is best. Never reuse one from another account.",
            "Multi-factor authentication is on for every company account, with the authenticator app, not SMS.",
            "Passwords live in the company password manager only: never in a message, a ticket or a workbook (if "
            "one gets there, follow Leaked secrets: passwords, keys and tokens).",
            "Nobody from IT will ever ask for your password."],
            "Devices:", [
            f"Company data on company laptops only, with disk encryption on and the screen locking after {lock} "
            "minutes.",
            "Install operating system updates within 7 days of the prompt.",
            "A lost or stolen laptop or phone is an Incident in IT, component Laptops & Hardware, filed within the "
            f"hour: impact Low and urgency High, which the tickets app makes {lost} priority. IT Support wipes it.",
            "Leaving the company: hand your laptop back to IT Support on your last day."],
            f"{c.R('it_head')} owns this policy.")
    return [V(600, "Password and device policy", "IT", body(10, 10)),
            V(130, "Password and device policy", "IT", body(14, 5),
              "Passwords now 14 characters; screens lock after 5 minutes")]
