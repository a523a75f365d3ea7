"""How a paper reads wherever it is shown: TeX as Unicode, titles, the one-line reasons
and BibTeX. Pure functions of records: no store, no Slack."""
