"""The Slack adapter: translates between Slack payloads and the use cases in :mod:`bot.usecases`.

`manifest` says what the app asks Slack for, `app` builds the Bolt app, `commands`, `reactions` and
`home` hold its listeners, `messages` the Block Kit, and `server` runs it (Socket Mode or HTTP).
"""
