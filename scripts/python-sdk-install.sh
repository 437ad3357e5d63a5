#!/usr/bin/env bash
# Checks that the Python SDK installs with pip from its pyproject.toml and
# that the installed package is the typed SDK. Offline: pip builds with the
# setuptools it has (--no-build-isolation); setuptools < 70 needs the wheel
# package for that, which Debian ships as python3-wheel (pure Python; made
# visible to this python only for the build). With network, a plain
# `pip install worker/python` needs none of this.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; rm -rf worker/python/build worker/python/*.egg-info' EXIT
buildpath=""
if ! python3 -c 'import wheel' 2>/dev/null; then
	[ -d /usr/lib/python3/dist-packages/wheel ] || { echo "python3-wheel is missing (make deps installs it)"; exit 1; }
	mkdir -p "$tmp/buildpath"
	for p in /usr/lib/python3/dist-packages/wheel /usr/lib/python3/dist-packages/wheel-*-info; do ln -s "$p" "$tmp/buildpath/"; done
	buildpath="$tmp/buildpath"
fi
PYTHONPATH="$buildpath" python3 -m pip install --quiet --root-user-action=ignore --no-build-isolation --no-index --no-deps --target "$tmp/site" ./worker/python
PYTHONPATH="$tmp/site" python3 - <<'PY'
import importlib.metadata, pathlib, jobwheel
root = pathlib.Path(jobwheel.__file__).parent
assert root.parent.name == "site", root
assert (root / "py.typed").exists(), "py.typed is not installed"
meta = importlib.metadata.metadata("jobwheel")
assert meta["Requires-Python"] == ">=3.9", meta["Requires-Python"]
assert jobwheel.SDK_VERSION.endswith(meta["Version"]), (jobwheel.SDK_VERSION, meta["Version"])
print("pip installs jobwheel", meta["Version"], "(typed; Python", meta["Requires-Python"] + ")")
PY
