"""A PEP 517 build backend (and PEP 660 editable installs) for this one pure-Python package.

It uses only the standard library, so `pip install ./clients/python` builds offline: pip's
isolated build environment has nothing to install. It packs `src/<package>/` as it is; the
metadata comes from `pyproject.toml`'s [project] table.
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import re
import sys
import tarfile
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.path.join(ROOT, "src")
# Fixed timestamp for reproducible archives (zip cannot store dates before 1980).
EPOCH = (1980, 1, 1, 0, 0, 0)


def _toml_loader():
    if sys.version_info >= (3, 11):
        import tomllib

        return tomllib
    import tomli  # listed by get_requires_for_build_* on Pythons without tomllib

    return tomli


def _project() -> dict:
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        return _toml_loader().load(f)["project"]


def _requires() -> list[str]:
    return [] if sys.version_info >= (3, 11) else ["tomli>=1.1"]


def get_requires_for_build_wheel(config_settings=None):
    return _requires()


def get_requires_for_build_sdist(config_settings=None):
    return _requires()


def get_requires_for_build_editable(config_settings=None):
    return _requires()


def _names(project: dict) -> tuple[str, str, str]:
    """(distribution name normalised for file names, import package, version)."""
    dist = re.sub(r"[-_.]+", "_", project["name"]).lower()
    return dist, dist, project["version"]


def _metadata(project: dict) -> str:
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {project['name']}",
        f"Version: {project['version']}",
        f"Summary: {project['description']}",
        f"License: {project['license']['text']}",
        f"Requires-Python: {project['requires-python']}",
    ]
    lines += [f"Requires-Dist: {d}" for d in project.get("dependencies", [])]
    for extra, deps in project.get("optional-dependencies", {}).items():
        lines.append(f"Provides-Extra: {extra}")
        lines += [f'Requires-Dist: {d}; extra == "{extra}"' for d in deps]
    lines.append("Description-Content-Type: text/markdown")
    with open(os.path.join(ROOT, project["readme"]), encoding="utf-8") as f:
        return "\n".join(lines) + "\n\n" + f.read()


def _package_files(package: str) -> list[tuple[str, str]]:
    """(archive name, path on disk) of every file of the package, caches left out."""
    found = []
    for directory, subdirs, files in os.walk(os.path.join(SRC, package)):
        subdirs[:] = sorted(d for d in subdirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith((".pyc", ".pyo")):
                continue
            path = os.path.join(directory, name)
            found.append((os.path.relpath(path, SRC).replace(os.sep, "/"), path))
    return found


def _write_wheel(wheel_directory: str, contents: list[tuple[str, bytes]]) -> str:
    project = _project()
    dist, _, version = _names(project)
    info = f"{dist}-{version}.dist-info"
    contents = contents + [
        (f"{info}/METADATA", _metadata(project).encode()),
        (f"{info}/WHEEL", b"Wheel-Version: 1.0\nGenerator: results_api_build\nRoot-Is-Purelib: true\nTag: py3-none-any\n"),
    ]
    record = []
    for name, data in contents:
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{name},sha256={digest},{len(data)}")
    record.append(f"{info}/RECORD,,")
    contents.append((f"{info}/RECORD", ("\n".join(record) + "\n").encode()))

    filename = f"{dist}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(os.path.join(wheel_directory, filename), "w", zipfile.ZIP_DEFLATED) as wheel:
        for name, data in contents:
            entry = zipfile.ZipInfo(name, EPOCH)
            entry.external_attr = 0o644 << 16
            wheel.writestr(entry, data, zipfile.ZIP_DEFLATED)
    return filename


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    _, package, _ = _names(_project())
    contents = []
    for name, path in _package_files(package):
        with open(path, "rb") as f:
            contents.append((name, f.read()))
    return _write_wheel(wheel_directory, contents)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    """PEP 660: a wheel whose .pth file puts this tree's src/ on sys.path."""
    _, package, _ = _names(_project())
    return _write_wheel(wheel_directory, [(f"__editable__.{package}.pth", (SRC + "\n").encode())])


def build_sdist(sdist_directory, config_settings=None):
    project = _project()
    dist, package, version = _names(project)
    base = f"{dist}-{version}"
    members = [("pyproject.toml", os.path.join(ROOT, "pyproject.toml")),
               (project["readme"], os.path.join(ROOT, project["readme"])),
               ("build_backend/results_api_build.py", os.path.abspath(__file__))]
    members += [(f"src/{name}", path) for name, path in _package_files(package)]
    pkg_info = _metadata(project).encode()
    filename = f"{base}.tar.gz"
    with tarfile.open(os.path.join(sdist_directory, filename), "w:gz", format=tarfile.PAX_FORMAT) as sdist:
        for name, path in members:
            with open(path, "rb") as f:
                _add(sdist, f"{base}/{name}", f.read())
        _add(sdist, f"{base}/PKG-INFO", pkg_info)
    return filename


def _add(archive: tarfile.TarFile, name: str, data: bytes) -> None:
    entry = tarfile.TarInfo(name)
    entry.size = len(data)
    entry.mode = 0o644
    archive.addfile(entry, io.BytesIO(data))
