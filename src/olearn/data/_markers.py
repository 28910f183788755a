"""What marks a file as a cache or a CoNLL file, shared by their readers and :func:`detect_format`.

Kept apart from the readers so that detecting a format loads none of them.
"""

CACHE_MAGIC = b"\x93OLCACHE"  # the first bytes of a cache file, whatever its suffix
CACHE_SUFFIX = ".olc"
DOCUMENT_START = b"-DOCSTART-"  # a CoNLL line that starts a document
