#!/bin/sh
# test_fuzz_text.sh: replays the corpus parsers' fuzz target (fuzz_text.c)
# over its seeds in tests/kernels/corpus-text plus deterministic mutations.
exec tests/kernels/replay_text "$top_srcdir/tests/kernels/corpus-text"
