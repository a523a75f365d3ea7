"""Slack listeners, one module per feature; each registers itself on the app."""
