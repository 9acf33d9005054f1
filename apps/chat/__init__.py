"""chat: a Slack-like messaging app (channels, threads, reactions, DMs, pins, search)."""
