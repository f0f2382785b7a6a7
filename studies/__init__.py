"""The studies: reproductions of published papers, one package each, built on the harness.

Each study (``p000_campus`` ...) holds its experiment files, its readings of the records, its
report page generator, its claim tests and a README. A study imports the harness; the harness
finds studies by looking in this folder (``harness.study``) and never imports one by name.
"""
