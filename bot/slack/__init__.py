"""The Slack adapter: translates between Slack payloads and the use cases in :mod:`bot.usecases`.

`manifest` says what the app asks Slack for, `app` builds the Bolt app and calls each listener module's
`register(app, runtime)`: `commands`, `reactions`, `home`, `people`. They share `runtime` (the context,
the work after the ack, per-person locks) and `errors` (the one error handler), never `app`. `digests`
holds the courier every paper goes out through (digests, and `dm` for `/papers recommend`) and the
digest scheduler, `messages` the Block Kit, and `server` runs it (Socket Mode or HTTP).
"""
