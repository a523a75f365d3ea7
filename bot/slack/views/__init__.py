"""Block Kit: paper messages, replies, the App Home tab and its modals."""
