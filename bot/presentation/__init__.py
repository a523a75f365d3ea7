"""How a paper reads wherever it is shown: its title and abstract as plain text (TeX and derived titles
from :mod:`bot.text`), Slack-safe mrkdwn, the one-line reasons and BibTeX. Pure functions of records: no
store, no Slack."""
