# SPDX-License-Identifier: MIT
"""python3 -m qpu [DEVICE]: print the device, run the self-check; exit 0 when it passes."""

import sys

from .errors import Error
from .selfcheck import main

try:
    sys.exit(main(sys.argv))
except (Error, OSError) as e:
    print("qpu: %s" % e, file=sys.stderr)
    sys.exit(1)
