#!/usr/bin/env python3
"""Reads an `export` output folder back with VTK's own XML reader and checks it against
the expectations written by the Rust end-to-end test (tools/export/tests/).

usage: check_vtk.py OUTDIR EXPECTED.json

Checks, for the particles, particles_state, obstacles and contacts series: the .pvd XML
(time values and file names in frame order, every file present), then each .vtp read
with vtkXMLPolyDataReader: the file's encoding (EXPECTED "format": compressed files carry
compressor="vtkZLibDataCompressor" and raw appended data), point and cell counts, point
positions against the expected poses, and the named point/cell data arrays; and the
shape meshes shape_NNN.vtp. Arrays named in an expectation's "float32" list must be
Float32 and match within Float32 rounding (one unit in the last place); every other
floating-point array must be Float64 and match to 1e-9. Exits non-zero with one line per
problem.
"""
import json
import math
import os
import sys
import xml.etree.ElementTree as ET

try:
    import vtk
except ImportError as exc:  # pragma: no cover - environment problem, not a test result
    sys.exit(f"check_vtk: cannot import vtk ({exc}); run `make pyenv`")

import vtk_read  # noqa: E402 (after the check that vtk imports)

PROBLEMS = []


def problem(msg):
    PROBLEMS.append(msg)


def read_pvd(path):
    root = ET.parse(path).getroot()
    if root.get("type") != "Collection":
        problem(f"{path}: VTKFile type is {root.get('type')!r}, expected 'Collection'")
    return [(float(d.get("timestep")), d.get("file")) for d in root.iter("DataSet")]


def read_vtp(path):
    return vtk_read.read_vtp(path, problem)


F32_ULP = 2.0**-23


def close(a, b, tol):
    if tol == "f32":
        return all(abs(x - y) <= F32_ULP * abs(y) + 1e-12 for x, y in zip(a, b))
    return all(abs(x - y) <= tol * max(1.0, abs(y)) for x, y in zip(a, b))


def check_type(path, name, data_type, exp):
    """Float32 where the expectation lists the array, Float64 for every other float."""
    want = vtk.VTK_FLOAT if name in exp.get("float32", []) else vtk.VTK_DOUBLE
    if data_type in (vtk.VTK_FLOAT, vtk.VTK_DOUBLE) and data_type != want:
        kind = "Float32" if want == vtk.VTK_FLOAT else "Float64"
        problem(f"{path}: {name} is not {kind}")
    return "f32" if want == vtk.VTK_FLOAT else 1e-9


def check_encoding(path, fmt):
    with open(path, "rb") as f:
        head = f.read(400)
    compressed = b'compressor="vtkZLibDataCompressor"' in head
    with open(path, "rb") as f:
        appended = b'<AppendedData encoding="raw">' in f.read()
    if fmt in ("compressed", "raw") and (compressed != (fmt == "compressed") or not appended):
        problem(f"{path}: not written as {fmt} appended data")
    if fmt in ("base64", "ascii") and (compressed or appended):
        problem(f"{path}: appended or compressed, expected inline {fmt}")


def array_values(data, name, path, ncomp, exp):
    arr = data.GetArray(name)
    if arr is None:
        problem(f"{path}: no data array {name!r}")
        return None, 0.0
    if ncomp is not None and arr.GetNumberOfComponents() != ncomp:
        problem(f"{path}: {name} has {arr.GetNumberOfComponents()} components, expected {ncomp}")
        return None, 0.0
    tol = check_type(path, name, arr.GetDataType(), exp)
    return [arr.GetTuple(i) for i in range(arr.GetNumberOfTuples())], tol


def compare_tuples(path, name, got, want, tol):
    if got is None:
        return
    if len(got) != len(want):
        problem(f"{path}: {name} has {len(got)} tuples, expected {len(want)}")
        return
    for i, (g, w) in enumerate(zip(got, want)):
        w = w if isinstance(w, list) else [w]
        if not close(g, w, tol):
            problem(f"{path}: {name}[{i}] = {list(g)}, expected {w}")
            return


def check_polydata(path, pd, exp, kind):
    n_points = pd.GetNumberOfPoints()
    if n_points != len(exp["points"]):
        problem(f"{path}: {n_points} points, expected {len(exp['points'])}")
        return
    cells = pd.GetNumberOfVerts() if kind == "verts" else pd.GetNumberOfPolys()
    other = pd.GetNumberOfPolys() if kind == "verts" else pd.GetNumberOfVerts()
    if cells != exp["cells"] or other != 0:
        problem(f"{path}: {cells} {kind} cells (+{other} others), expected {exp['cells']}")
    points = [pd.GetPoint(i) for i in range(n_points)]
    tol = 1e-9
    if n_points:
        tol = check_type(path, "Points", pd.GetPoints().GetDataType(), exp)
    compare_tuples(path, "points", points, exp["points"], tol)
    if kind == "polys" and cells == exp["cells"]:
        polys = pd.GetPolys()
        ids = vtk.vtkIdList()
        polys.InitTraversal()
        conn = []
        while polys.GetNextCell(ids):
            conn.append([ids.GetId(k) for k in range(ids.GetNumberOfIds())])
        if conn != exp["triangles"]:
            problem(f"{path}: triangle connectivity differs from the meshes")
    for name, want in exp.get("point_data", {}).items():
        if not want:
            ncomp = None
        else:
            ncomp = len(want[0]) if isinstance(want[0], list) else 1
        got, tol = array_values(pd.GetPointData(), name, path, ncomp, exp)
        compare_tuples(path, name, got, want, tol)
    for name, want in exp.get("cell_data", {}).items():
        got, _ = array_values(pd.GetCellData(), name, path, 1, exp)
        compare_tuples(path, name, got, want, 0.0)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    out, expected_path = sys.argv[1], sys.argv[2]
    with open(expected_path) as f:
        expected = json.load(f)
    vtk_dir = os.path.join(out, "vtk")
    times = [fr["time"] for fr in expected["frames"]]
    fmt = expected.get("format", "compressed")
    checked = 0
    series_kinds = [("particles", "polys"), ("particles_state", "verts"), ("contacts", "verts"),
                    ("obstacles", "polys")]
    if not expected.get("meshes", True):
        series_kinds = series_kinds[1:]
        if os.path.exists(os.path.join(vtk_dir, "particles.pvd")):
            problem(f"{vtk_dir}: particles.pvd written without meshes")
    for series, kind in series_kinds:
        pvd = os.path.join(vtk_dir, f"{series}.pvd")
        if not os.path.isfile(pvd):
            problem(f"{pvd}: missing")
            continue
        entries = read_pvd(pvd)
        if [t for t, _ in entries] != times:
            problem(f"{pvd}: times {[t for t, _ in entries]}, expected {times}")
        if len(entries) != len(expected["frames"]):
            continue
        for (t, file), fr in zip(entries, expected["frames"]):
            path = os.path.join(vtk_dir, file)
            if not os.path.isfile(path):
                problem(f"{pvd}: names missing file {file}")
                continue
            if series == "obstacles":
                exp = expected["obstacles"]
            else:
                exp = fr[series]
                if file != f"{series}_{fr['index']:06d}.vtp":
                    problem(f"{pvd}: frame {fr['index']} maps to {file}")
            check_encoding(path, fmt)
            check_polydata(path, read_vtp(path), exp, kind)
            checked += 1
    for index, exp in enumerate(expected.get("shapes", [])):
        path = os.path.join(vtk_dir, f"shape_{index:03d}.vtp")
        if not os.path.isfile(path):
            problem(f"{path}: missing")
            continue
        check_encoding(path, fmt)
        check_polydata(path, read_vtp(path), exp, "polys")
        checked += 1
    if PROBLEMS:
        for p in PROBLEMS:
            print(f"check_vtk: {p}", file=sys.stderr)
        sys.exit(1)
    print(f"check_vtk: OK ({checked} .vtp files, {len(times)} time values)")


if __name__ == "__main__":
    main()
