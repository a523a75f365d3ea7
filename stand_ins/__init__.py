"""What the tests, the benchmarks and the image's CI check all drive paperbot with: stand-ins for Slack and
arXiv answering in their recorded formats, the synthetic corpus, signed requests, PostgreSQL throwaway
databases, and the one wait. Not part of the installed package, and nothing here imports tests/.
"""
