"""The Slack adapter: translates between Slack payloads and the use cases in :mod:`bot.usecases`.

``manifest`` says what the app asks Slack for; ``app`` builds the Bolt app, with its one error handler
(``error_handler``), and calls each listener module's ``register(app, runtime)`` (``listeners/``, one
module per feature); ``server`` runs it (HTTP behind ``gate``, or Socket Mode). Listeners share
``runtime`` (the context, the work after the ack, per-person locks), never ``app``; the work is carried
out by ``background`` from the inbox. ``subcommands/`` parses and answers the ``/papers`` subcommands,
``views/`` draws the Block Kit, ``delivery/`` posts into Slack (the digest courier and scheduler, trending
posts, polls, the admins' report), ``oauth/`` installs the app into workspaces, and ``client`` is the
Web API client every part uses.
"""
