"""tickets: a Jira / ServiceNow-like tracker (projects, tickets with workflows and SLAs, comments and
work notes, watchers, links, sprints and boards, a JQL-like query language)."""
