"""The process's state: the live paper index, what every use case is handed, the author
directory, the embedding option, and who does the shared background work."""
