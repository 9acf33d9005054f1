"""Words of the tickets world: components, ticket summaries and descriptions, comments."""

from __future__ import annotations

IT_COMPONENTS = [("Laptops & Hardware", "Laptops, monitors, docks and peripherals"),
                 ("Accounts & Access", "Logins, SSO, permissions and access requests"),
                 ("Network & VPN", "Office network, Wi-Fi and the VPN"),
                 ("Email & Calendar", "Mailboxes, distribution lists and calendars"),
                 ("Software", "Licences and installs of desktop software"),
                 ("Production", "Customer-facing services in production")]

# (summary, description, component, impact, urgency) of employee-facing IT incidents.
IT_INCIDENTS = [
    ("Laptop will not boot after update", "The laptop shows a black screen after last night's OS update.", "Laptops & Hardware", "Low", "High"),
    ("Cannot connect to VPN from home", "The VPN client times out at 'Authenticating'.", "Network & VPN", "Medium", "High"),
    ("Office Wi-Fi drops every few minutes", "Several people on the 3rd floor lose Wi-Fi repeatedly.", "Network & VPN", "Medium", "Medium"),
    ("Outlook keeps asking for password", "The mail client prompts for credentials every hour.", "Email & Calendar", "Low", "Medium"),
    ("Shared drive not mounting", "The team share does not appear after login.", "Accounts & Access", "Medium", "Medium"),
    ("Printer on 2nd floor jams", "The printer near the kitchen jams on every job.", "Laptops & Hardware", "Low", "Low"),
    ("SSO login loop on the HR portal", "Signing in to the HR portal redirects back to the login page.", "Accounts & Access", "Medium", "High"),
    ("Video calls freeze in meeting rooms", "Room systems freeze after about ten minutes of a call.", "Network & VPN", "Medium", "Medium"),
]

# (summary, description, component) of production incidents worked by engineering on-call groups.
PROD_INCIDENTS = [
    ("Checkout API returning 502 errors", "Error rate on /checkout above 5% since the last deploy.", "Production"),
    ("Webhook deliveries delayed by 20 minutes", "The webhook queue is backing up; deliveries arrive late.", "Production"),
    ("Login latency above 3 seconds", "p95 login latency jumped from 400 ms to 3.2 s.", "Production"),
    ("Nightly export job failing", "The export job has failed two nights in a row with a timeout.", "Production"),
    ("Payment retries charging twice", "A few customers report duplicate charges after a retry.", "Production"),
    ("Dashboard blank for EU customers", "EU-region customers see an empty dashboard.", "Production"),
]

# (summary, description, component, priority) of service requests.
IT_REQUESTS = [
    ("New laptop for new hire", "Please prepare a laptop and accounts for a new starter.", "Laptops & Hardware", "Medium"),
    ("Access to the analytics warehouse", "I need read access to the warehouse for reporting.", "Accounts & Access", "Low"),
    ("Add me to the sales-all mailing list", "Please add me to the distribution list.", "Email & Calendar", "Low"),
    ("Licence for the design tool", "I need a seat of the design tool for a project.", "Software", "Low"),
    ("Second monitor", "Requesting a second monitor for my desk.", "Laptops & Hardware", "Lowest"),
    ("Reset my MFA device", "I changed phones and cannot pass MFA.", "Accounts & Access", "High"),
    ("Shared mailbox for the support team", "Please create a shared mailbox for support.", "Email & Calendar", "Medium"),
]

PROBLEMS = [("Recurring VPN authentication timeouts", "Root cause of repeated VPN timeouts.", "Network & VPN"),
            ("Deploys intermittently break the checkout API", "Root cause of 502s after deploys.", "Production")]

# (summary, description, type) of engineering work; {area} is a component (an engineering team).
ENG_WORK = [
    ("Add retry with backoff to {area} client", "Calls fail hard on a single timeout; retry with jittered backoff.", "Story"),
    ("Flaky integration test in {area}", "The suite fails about one run in ten on CI.", "Bug"),
    ("Upgrade {area} dependencies", "Several libraries are two major versions behind.", "Task"),
    ("{area}: p95 latency regression", "p95 doubled after last week's release.", "Bug"),
    ("Document the {area} runbook", "On-call needs a runbook for the common alerts.", "Task"),
    ("{area}: add metrics for queue depth", "We cannot see backlog growth until it is too late.", "Story"),
    ("Remove the deprecated v1 endpoints from {area}", "v1 has had no traffic for 60 days.", "Task"),
    ("{area}: null pointer on empty input", "An empty payload crashes the handler.", "Bug"),
    ("Feature flag cleanup in {area}", "Twelve flags are fully rolled out and can go.", "Task"),
    ("{area}: support bulk operations", "Customers ask to update many records in one call.", "Story"),
    ("Migrate {area} cron jobs to the scheduler", "Cron on a single VM is a single point of failure.", "Story"),
    ("{area}: memory leak in worker", "Workers grow to 2 GB over a day and get killed.", "Bug"),
]
ENG_SUBTASKS = ["Write the design note", "Implement the change", "Add tests", "Roll out behind a flag"]

SOPS_WORK = [
    ("Territory realignment for {region}", "Rebalance accounts across reps in {region}.", "Task"),
    ("Clean up duplicate accounts in the CRM", "Several accounts exist twice with slightly different names.", "Task"),
    ("Forecast dashboard shows stale data", "The pipeline dashboard did not refresh since Monday.", "Bug"),
    ("Add 'Competitor' to the loss report", "Managers want loss reasons split by competitor.", "Story"),
    ("Quote template for {account}", "Prepare a quote template for the renewal of {account}.", "Task"),
    ("Commission report for {quarter}", "Run the commission report for {quarter}.", "Task"),
]

LEGAL_REQUESTS = [
    ("Contract review: {account} MSA", "Please review the master services agreement redlines from {account}.", "High"),
    ("NDA for {account}", "Mutual NDA needed before the technical deep-dive with {account}.", "Medium"),
    ("DPA questions from {account}", "{account} sent questions about our data processing addendum.", "Medium"),
    ("Order form review: {account}", "Non-standard payment terms in the {account} order form.", "High"),
    ("Trademark check for a campaign name", "Marketing wants to use a new campaign name.", "Low"),
    ("Vendor contract renewal", "The analytics vendor contract renews next month.", "Low"),
]

COMMENTS = ["Looking into this now.", "Can you share a screenshot of the error?", "I can reproduce it.",
            "Thanks, that fixed it for me.", "Any update on this?", "Deployed a fix, please check.",
            "Same here since this morning.", "Workaround: restart the client and sign in again."]
WORK_NOTES = ["Checked the logs: started right after the 14:05 deploy.", "Escalated to the vendor, case opened.",
              "Likely related to last week's certificate rotation.", "Paged the secondary on-call."]
LABELS = ["customer-impact", "regression", "tech-debt", "quick-win", "security", "onboarding", "needs-info", "q1-goal"]
