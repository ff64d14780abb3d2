"""The differential fuzzer's parts: ``grammar`` writes programs, ``compare`` runs one through
both libraries and compares the outcomes, ``families/`` adds vocabulary (one module per family,
found by name). ``tests/test_fuzz.py`` drives them."""
