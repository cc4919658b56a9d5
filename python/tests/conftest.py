import sys
from pathlib import Path

# Tests run from a source checkout without installing the package.
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "inst" / "python"))
