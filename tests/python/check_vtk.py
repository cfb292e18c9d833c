#!/usr/bin/env python3
"""Reads an `export` output folder back with VTK's own XML reader and checks it against
the expectations written by the Rust end-to-end test (tools/export/tests/).

usage: check_vtk.py OUTDIR EXPECTED.json

Checks, for the particles, obstacles and contacts series: the .pvd XML (time values and
file names in frame order, every file present), then each .vtp read with
vtkXMLPolyDataReader: point and cell counts, point positions against the expected poses,
and the named point/cell data arrays. Exits non-zero with one line per problem.
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

PROBLEMS = []


def problem(msg):
    PROBLEMS.append(msg)


def read_pvd(path):
    root = ET.parse(path).getroot()
    if root.get("type") != "Collection":
        problem(f"{path}: VTKFile type is {root.get('type')!r}, expected 'Collection'")
    return [(float(d.get("timestep")), d.get("file")) for d in root.iter("DataSet")]


class ErrorCatcher:
    def __init__(self):
        self.messages = []

    def __call__(self, obj, event):
        self.messages.append(event)


def read_vtp(path):
    reader = vtk.vtkXMLPolyDataReader()
    catcher = ErrorCatcher()
    reader.AddObserver("ErrorEvent", catcher)
    reader.SetFileName(path)
    reader.Update()
    if catcher.messages or reader.GetErrorCode() != 0:
        problem(f"{path}: VTK reader reported an error")
    return reader.GetOutput()


def close(a, b, tol):
    return all(abs(x - y) <= tol * max(1.0, abs(y)) for x, y in zip(a, b))


def array_values(data, name, path, ncomp):
    arr = data.GetArray(name)
    if arr is None:
        problem(f"{path}: no data array {name!r}")
        return None
    if ncomp is not None and arr.GetNumberOfComponents() != ncomp:
        problem(f"{path}: {name} has {arr.GetNumberOfComponents()} components, expected {ncomp}")
        return None
    return [arr.GetTuple(i) for i in range(arr.GetNumberOfTuples())]


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
    compare_tuples(path, "points", points, exp["points"], 1e-9)
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
        got = array_values(pd.GetPointData(), name, path, ncomp)
        compare_tuples(path, name, got, want, 1e-9)
    for name, want in exp.get("cell_data", {}).items():
        got = array_values(pd.GetCellData(), name, path, 1)
        compare_tuples(path, name, got, want, 0.0)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    out, expected_path = sys.argv[1], sys.argv[2]
    with open(expected_path) as f:
        expected = json.load(f)
    vtk_dir = os.path.join(out, "vtk")
    times = [fr["time"] for fr in expected["frames"]]
    checked = 0
    for series, kind in (("particles", "polys"), ("contacts", "verts"), ("obstacles", "polys")):
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
            check_polydata(path, read_vtp(path), exp, kind)
            checked += 1
    if PROBLEMS:
        for p in PROBLEMS:
            print(f"check_vtk: {p}", file=sys.stderr)
        sys.exit(1)
    print(f"check_vtk: OK ({checked} .vtp files, {len(times)} time values)")


if __name__ == "__main__":
    main()
