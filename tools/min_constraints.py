#!/usr/bin/env python3
"""Write a pip constraints file that pins every runtime dependency to its declared minimum.

The list of dependencies is read from ``setup.cfg`` (``[options] install_requires``),
never repeated here: each entry must carry a lower bound (``>=X`` or ``==X``), and the
constraints file says ``name==X`` for it.  CI installs the package with it::

    python tools/min_constraints.py > min.txt
    pip install -c min.txt ".[test]"

so the test suite runs against the oldest versions ``setup.cfg`` claims to support, and
checks afterwards that they are what got installed (``--check``: prints each pinned
package's installed version; exit status 1 on a difference)::

    python tools/min_constraints.py --check
An entry without a lower bound is an error (exit status 1): a claim of "any version"
cannot be tested.

Usage: ``python tools/min_constraints.py [SETUP_CFG] [-o OUTPUT | --check]``.
"""

import argparse
import configparser
import pathlib
import re
import sys

# A requirement as setup.cfg writes it: name, optional [extras], specifiers, optional ; marker.
_REQUIREMENT = re.compile(
    r"""^\s*(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)\s*
        (?:\[[^\]]*\])?\s*
        (?P<specs>[^;]*?)\s*
        (?:;\s*(?P<marker>.+?))?\s*$""",
    re.VERBOSE,
)
_SPEC = re.compile(r"^\s*(?P<op>~=|==|!=|<=|>=|<|>|===)\s*(?P<version>[^\s,]+)\s*$")


def install_requires(setup_cfg):
    """The ``install_requires`` entries of ``setup_cfg``, one string each (comments dropped)."""
    parser = configparser.ConfigParser(interpolation=None, inline_comment_prefixes=("#",))
    if not parser.read(setup_cfg):
        raise FileNotFoundError(f"setup_cfg: cannot read {setup_cfg!r}")
    raw = parser.get("options", "install_requires", fallback="")
    return [line.strip() for line in raw.splitlines() if line.strip() and not line.strip().startswith("#")]


def minimum_pin(requirement):
    """``name==min`` (plus the entry's environment marker) for one requirement string.

    The minimum is the version of the ``>=``, ``~=`` or ``==`` specifier.  Raises
    ``ValueError`` naming the entry when it has none.
    """
    match = _REQUIREMENT.match(requirement)
    if match is None:
        raise ValueError(f"install_requires: cannot parse {requirement!r}")
    name, specs, marker = match.group("name"), match.group("specs"), match.group("marker")
    lower = None
    for spec in filter(None, (s.strip() for s in specs.split(","))):
        parsed = _SPEC.match(spec)
        if parsed is None:
            raise ValueError(f"install_requires: cannot parse the specifier {spec!r} of {requirement!r}")
        if parsed.group("op") in (">=", "~=", "==", "==="):
            lower = parsed.group("version")
    if lower is None:
        raise ValueError(
            f"install_requires: {requirement!r} has no lower bound; declare the oldest version "
            f"that works as '{name}>=X' so that CI can test it"
        )
    pin = f"{name}=={lower}"
    return f"{pin}; {marker}" if marker else pin


def _canonical(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def check_installed(pins):
    """Print ``name: installed (pinned)`` for every pin; return the number of mismatches.

    Versions are compared after padding with zeros (``4.64`` equals ``4.64.0``).
    """
    from importlib import metadata

    def release(version):
        parts = [int(p) if p.isdigit() else p for p in re.split(r"[.+]", version)]
        while parts and parts[-1] == 0:
            parts.pop()
        return parts

    bad = 0
    for pin in pins:
        name, wanted = pin.split(";")[0].strip().split("==")
        try:
            have = metadata.version(name)
        except metadata.PackageNotFoundError:
            have = "not installed"
        ok = have != "not installed" and release(have) == release(wanted)
        bad += not ok
        print(f"{name:>15}: {have:<12} (declared minimum {wanted}){'' if ok else '  <-- MISMATCH'}")
    return bad


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    root = pathlib.Path(__file__).resolve().parent.parent
    parser.add_argument("setup_cfg", nargs="?", default=str(root / "setup.cfg"))
    parser.add_argument("-o", "--output", help="file to write (default: standard output)")
    parser.add_argument("--check", action="store_true",
                        help="print the installed versions of the pinned packages; fail if any differs")
    args = parser.parse_args(argv)
    try:
        pins = [minimum_pin(r) for r in install_requires(args.setup_cfg)]
    except (ValueError, FileNotFoundError) as exc:
        print(f"min_constraints: {exc}", file=sys.stderr)
        return 1
    if not pins:
        print(f"min_constraints: no install_requires in {args.setup_cfg}", file=sys.stderr)
        return 1
    if args.check:
        bad = check_installed(pins)
        if bad:
            print(f"min_constraints: {bad} package(s) not at the declared minimum", file=sys.stderr)
        return 1 if bad else 0
    text = "# Generated by tools/min_constraints.py from setup.cfg: the declared minimum versions.\n"
    text += "\n".join(pins) + "\n"
    if args.output:
        pathlib.Path(args.output).write_text(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
