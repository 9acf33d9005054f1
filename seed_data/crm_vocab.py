"""Static vocabulary of the CRM part of a world: the product catalog, what deals are about, what
reps log, what customers report, and how the deal owners talk about their deals in chat.

Chat phrasings (DEAL_TALK) are filled by seed_data.chat_deals with facts of one real opportunity:
`{account}` (exactly as stored), `{deal_amount}` ("$120,000"), `{stage}`, `{competitor}`,
`{close_date}` ("March 27"), `{discount}` ("25%") and `{manager}` (the owner's manager's handle).
Each kind is only used for deals of which it is true at the company's "now".
"""

from __future__ import annotations

# (code, name, family, list price in whole dollars, unit, description). Prices are multiples of
# $100 and discounts whole percents, so every line total is a whole-dollar amount.
PRODUCTS = [
    ("PLT-STD", "Platform Standard", "Platform", 300, "seat", "Core workflows and reporting, per seat per year"),
    ("PLT-PRO", "Platform Professional", "Platform", 500, "seat", "Advanced automation and approvals, per seat per year"),
    ("PLT-ENT", "Platform Enterprise", "Platform", 900, "seat", "Everything in Professional plus audit and sandbox, per seat per year"),
    ("ADD-ANL", "Advanced Analytics", "Add-on", 100, "seat", "Custom dashboards and exports, per seat per year"),
    ("ADD-SSO", "SSO and SCIM", "Add-on", 6000, "org", "Single sign-on and user provisioning, per year"),
    ("ADD-API", "API Volume Pack", "Add-on", 4800, "pack", "One million extra API calls per year"),
    ("SVC-ONB", "Onboarding Package", "Services", 12500, "package", "Guided implementation over six weeks"),
    ("SVC-TRN", "Training Day", "Services", 2400, "day", "On-site or remote admin training, per day"),
    ("SVC-INT", "Custom Integration", "Services", 25000, "project", "A connector to a customer system, built by our team"),
    ("SUP-PRM", "Premium Support", "Support", 15000, "year", "24/7 support with a one-hour response target"),
    ("SUP-TAM", "Technical Account Manager", "Support", 30000, "year", "A named technical advisor, per year"),
    ("PLT-CLS", "Platform Classic", "Platform", 250, "seat", "Legacy plan, no longer sold"),
]
INACTIVE_PRODUCTS = {"PLT-CLS"}
STANDARD_BOOK, PARTNER_BOOK = "Standard Price Book", "Partner Price Book"
PARTNER_DISCOUNT = 15  # percent below list in the partner price book

# What a deal is about, per type: (purpose in the deal name, main product, extras that may follow).
PURPOSES = {
    "New Business": [("Platform Enterprise", "PLT-ENT", ["ADD-SSO", "SVC-ONB", "SUP-TAM"]),
                     ("Platform Professional rollout", "PLT-PRO", ["SVC-ONB", "ADD-ANL", "SVC-TRN"]),
                     ("Platform Standard pilot", "PLT-STD", ["SVC-TRN"]),
                     ("New platform deployment", "PLT-PRO", ["SVC-ONB", "SVC-INT"])],
    "Upsell": [("Analytics add-on", "ADD-ANL", ["SVC-TRN"]), ("Seat expansion", "PLT-PRO", ["ADD-ANL"]),
               ("SSO and SCIM", "ADD-SSO", ["SVC-TRN"]), ("Premium Support upgrade", "SUP-PRM", ["SUP-TAM"]),
               ("ERP integration", "SVC-INT", ["ADD-API"]), ("Upgrade to Enterprise", "PLT-ENT", ["SUP-PRM"])],
    "Renewal": [("Annual renewal", "PLT-PRO", ["SUP-PRM"]), ("2026 renewal", "PLT-ENT", ["ADD-SSO", "SUP-PRM"]),
                ("Multi-year renewal", "PLT-STD", ["ADD-ANL"])],
}
SEATS = {"1-50": (10, 40), "51-200": (25, 150), "201-1000": (80, 500), "1001-5000": (150, 700), "5000+": (300, 1200)}

COMPETITORS = ["Corvexa", "FlowPilot", "Stackwise", "Opsmint", "Ledgerline", "Quantive", "Brightloop"]
NEXT_STEPS = {
    "Prospecting": ["Book a discovery call with the champion", "Send intro deck and case studies",
                    "Find the economic buyer"],
    "Qualification": ["Confirm budget and timeline with the champion", "Technical deep dive with their IT team",
                      "Map the buying committee"],
    "Proposal": ["Walk the CFO through the proposal", "Answer the security questionnaire",
                 "Send revised pricing for a two-year term"],
    "Negotiation": ["Legal redlines back from their counsel", "Get the order form signed",
                    "Final pricing call with procurement"],
}
DESCRIPTIONS = ["Replacing spreadsheets and email approvals across {n} teams.",
                "Consolidating three regional tools onto one platform.",
                "Champion is the VP of Operations; procurement runs a formal review.",
                "Expansion driven by strong adoption in the pilot team.",
                "Budget approved for this fiscal year; decision by committee."]

INDUSTRY_WEIGHTS = {"Software": 4, "Financial Services": 4, "Healthcare": 3, "Manufacturing": 3, "Retail": 3,
                    "Education": 1, "Government": 1, "Media": 2, "Logistics": 2, "Energy": 1,
                    "Telecommunications": 1, "Hospitality": 1}
SIZE_WEIGHTS = {"1-50": 1, "51-200": 3, "201-1000": 4, "1001-5000": 3, "5000+": 2}
# Region of an account -> the sales team region ("na", "emea", "apac") whose reps own it.
TEAM_REGION = {"North America": "na", "LATAM": "na", "EMEA": "emea", "APAC": "apac"}
SIZES_DOWN = {"5000+": "1001-5000", "1001-5000": "201-1000"}  # a subsidiary is smaller than its parent
REGION_WEIGHTS = {"North America": 10, "EMEA": 5, "APAC": 2, "LATAM": 1}
SUBSIDIARIES = {"North America": ["Canada", "US Federal"], "EMEA": ["EMEA", "UK", "Germany"],
                "APAC": ["APAC", "Australia", "Singapore"], "LATAM": ["Brasil", "Mexico"]}
PHONES = {"North America": "+1 ({a}) 555-{b:04d}", "EMEA": "+44 20 7946 {b:04d}", "APAC": "+65 6{a} {b:04d}",
          "LATAM": "+52 55 {a}0 {b:04d}"}
TLDS = ["com", "com", "com", "io", "net", "co"]

CONTACT_TITLES = ["VP of Operations", "Director of IT", "CFO", "Head of Procurement", "IT Manager",
                  "Chief Operating Officer", "Operations Manager", "Finance Director", "CTO",
                  "Business Systems Analyst", "Head of Customer Experience", "Procurement Specialist"]

# Activity subjects per kind; `{contact}`, `{product}` and `{account}` are filled per record.
ACTIVITY_SUBJECTS = {
    "call": ["Discovery call with {contact}", "Check-in call with {contact}", "Pricing call with {contact}",
             "Reference call for {account}"],
    "email": ["Sent proposal to {contact}", "Follow-up on {product} pricing", "Sent security questionnaire answers",
              "Recap of today's meeting to {contact}"],
    "meeting": ["Demo of {product} for {account}", "Onsite workshop at {account}", "Executive sponsor meeting",
                "Quarterly business review with {contact}"],
    "note": ["{contact} is the champion; budget sits with the CFO", "Competitor pricing came up again",
             "Procurement wants a two-year term"],
    "task": ["Send revised quote to {contact}", "Schedule security review with {account}",
             "Prepare the order form", "Follow up on legal redlines", "Update close date after the call"],
}
LEAD_SUBJECTS = ["Intro call with {contact}", "Sent product overview to {contact}", "Qualify budget with {contact}"]
CASE_ACTIVITY = ["Called {contact} about the case", "Sent workaround to {contact}", "Escalated internally"]

# (subject, description) of customer issues.
CASE_SUBJECTS = [
    ("SSO login fails for some users", "Users in one region get an error after the identity provider redirect."),
    ("Export to CSV times out", "Exports of more than 50,000 rows never finish."),
    ("Invoice shows the wrong tax rate", "The last invoice applied the standard rate instead of the reduced one."),
    ("Webhook deliveries delayed", "Webhooks arrive up to 20 minutes late since last week."),
    ("Request to add seats", "The customer wants 20 more seats before the renewal."),
    ("API rate limit errors", "The nightly sync hits HTTP 429 errors after the first hour."),
    ("Dashboard not loading in Safari", "The main dashboard stays blank in Safari 17."),
    ("Password reset emails not arriving", "Reset emails do not reach users on the customer's mail server."),
    ("Data sync stuck", "The ERP connector has not synced since Tuesday."),
    ("Question about renewal terms", "The customer asks whether the price is locked for a multi-year renewal."),
    ("Audit log export missing events", "Admin actions from last month are missing in the audit export."),
    ("Slow report generation", "Monthly reports take several minutes to render."),
]
DISCOUNT_REASONS = ["Three-year commitment", "Competitive pressure from {competitor}", "Strategic logo in {region}",
                    "Matching budget approved by their board"]

# How a deal owner talks about one of their deals; each kind is used only when it is true.
DEAL_TALK = {
    "won": ["Closed Won: {account}, {deal_amount}! 🎉", "Signed! {account} is done: {deal_amount}. Thanks everyone who helped.",
            "{account} just signed for {deal_amount}. Closed Won! 🎉"],
    "verbal": ["Verbal yes from {account} on {deal_amount}! Paperwork goes out today."],
    "lost": ["We lost {account} to {competitor} ({deal_amount}). Notes are in the CRM.",
             "Bad news: {account} went with {competitor}. {deal_amount} Closed Lost; I'll share learnings on Friday."],
    "lost_plain": ["{account} is Closed Lost ({deal_amount}), reason: {loss_reason}. Notes are in the CRM."],
    "Negotiation": ["{account} moved to Negotiation, {deal_amount} on the table. Target close is {close_date}.",
                    "Update: {account} is in Negotiation at {deal_amount}; legal is reviewing the order form."],
    "Proposal": ["Proposal sent to {account}: {deal_amount}. They want to decide by {close_date}."],
    "Qualification": ["New qualified opp: {account}, {deal_amount}. Discovery went well."],
    "Prospecting": ["Opened a new opportunity with {account}, {deal_amount} to start. Early days."],
    "approved": ["Thanks @{manager} for approving {discount} on {account}! {deal_amount} now, sending the order form."],
    "pending": ["@{manager} I've requested {discount} off for {account} in the CRM, could you take a look when you can?"],
    "help": ["{account} ({deal_amount}, {stage}) is slated to close {close_date}. Anyone have a reference customer in the same industry?"],
}
CEO_WIN = ("I'm thrilled to share that {account} signed with us today: {deal_amount}! A true team effort, "
           "thank you @{deal_owner} and everyone who helped.")
DEAL_REPLIES = {
    "won": ["Huge! Nice work @{asker}", "Congrats! 🎉", "Well deserved, great work", "Amazing, congrats @{asker}!"],
    "verbal": ["Let's go!", "Fingers crossed for the signature"],
    "lost": ["Sorry to hear, thanks for the write-up", "Their loss. Onto the next one!"],
    "move": ["Nice progress!", "Let me know if you need help with the exec sponsor", "Go go go"],
    "ask": ["I can introduce you to one of mine, DM me", "On it", "Sure, I'll dig something up"],
}
