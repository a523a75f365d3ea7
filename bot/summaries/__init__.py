"""Summaries written by a model the lab runs (PAPERBOT_LLM_URL), and the check each passes before it may be
shown: the endpoint's client (:mod:`bot.summaries.client`) and the check (:mod:`bot.summaries.check`)."""
