"""_load.py: imports nodeox._engine, the CPython extension, and says what to
do when it cannot be loaded: an extension only loads in the CPython version
it was compiled for (its file name carries the ABI, e.g.
_engine.cpython-311-x86_64-linux-gnu.so), so a package built for one Python
and imported by another would otherwise fail with "cannot import name
'_engine'"."""

import glob
import importlib
import os
import sys
import sysconfig


def load_engine():
    try:
        return importlib.import_module("nodeox._engine")
    except ImportError as e:
        here = os.path.dirname(os.path.abspath(__file__))
        built = sorted(os.path.basename(p) for p in glob.glob(os.path.join(here, "_engine*.so")))
        this = "CPython %d.%d (%s, extension suffix %s)" % (
            sys.version_info[0], sys.version_info[1], sys.executable,
            sysconfig.get_config_var("EXT_SUFFIX"))
        if not built:
            msg = ("nodeox._engine is not built in %s; this interpreter is %s. Install nodeox with "
                   "this interpreter: %s -m pip install /path/to/nodeox" % (here, this, sys.executable))
        elif not any(b.endswith(sysconfig.get_config_var("EXT_SUFFIX") or ".so") for b in built):
            msg = ("nodeox._engine in %s was built for another Python (%s); this interpreter is %s. "
                   "Install nodeox with this interpreter (%s -m pip install /path/to/nodeox), or run "
                   "the interpreter it was built for" % (here, ", ".join(built), this, sys.executable))
        else:
            msg = "nodeox._engine (%s) does not load in %s: %s" % (", ".join(built), this, e)
        raise ImportError(msg) from e
