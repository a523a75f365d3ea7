"""Posting into Slack: the digest courier and scheduler, files, trending posts, weekly recaps."""
