"""Text work that reading sources and showing papers share: TeX as Unicode (``tex.py``), titles derived
from abstracts (``titles.py``), whitespace (``whitespace.py``). Pure string work: it imports nothing of
the bot, so both ``bot/sources`` and ``bot/presentation`` stand on it."""
