#!/usr/bin/env python3
"""Reads a ParaView collection (.pvd) and every .vtp it lists with VTK's own XML reader
and prints them as JSON, for the Rust end-to-end tests to compare with their own values.

usage: dump_vtk.py SERIES.pvd

Output: {"datasets": [{"time": t, "file": name, "points": [[x, y, z], ...],
"point_data": {name: {"type": "Float64", "components": n, "values": [[...], ...]}}}]}.
Floats are printed with repr (shortest round trip), so they compare exactly.
"""
import json
import os
import sys
import xml.etree.ElementTree as ET

try:
    import vtk
except ImportError as exc:  # pragma: no cover - environment problem, not a test result
    sys.exit(f"dump_vtk: cannot import vtk ({exc}); run `make pyenv`")

import vtk_read  # noqa: E402 (after the check that vtk imports)


def read_vtp(path):
    return vtk_read.read_vtp(path, lambda m: sys.exit(f"dump_vtk: {m}"))


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    pvd = sys.argv[1]
    root = ET.parse(pvd).getroot()
    out = []
    for d in root.iter("DataSet"):
        path = os.path.join(os.path.dirname(pvd), d.get("file"))
        pd = read_vtp(path)
        arrays = {}
        data = pd.GetPointData()
        for i in range(data.GetNumberOfArrays()):
            a = data.GetArray(i)
            arrays[a.GetName()] = {
                "type": {vtk.VTK_FLOAT: "Float32", vtk.VTK_DOUBLE: "Float64"}.get(
                    a.GetDataType(), a.GetDataTypeAsString()),
                "components": a.GetNumberOfComponents(),
                "values": [list(a.GetTuple(k)) for k in range(a.GetNumberOfTuples())],
            }
        out.append({
            "time": float(d.get("timestep")),
            "file": d.get("file"),
            "verts": pd.GetNumberOfVerts(),
            "points": [list(pd.GetPoint(k)) for k in range(pd.GetNumberOfPoints())],
            "point_data": arrays,
        })
    json.dump({"datasets": out}, sys.stdout)


if __name__ == "__main__":
    main()
