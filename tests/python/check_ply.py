#!/usr/bin/env python3
"""Independent reader for the binary PLY files of `export` (plain Python, no PLY library).

usage: check_ply.py OUTDIR EXPECTED.json

Parses OUTDIR/ply/frame_NNNNNN.ply and OUTDIR/ply/obstacles.ply (binary little endian;
vertex: float x, y, z; face: list uchar int vertex_indices, int owner) and checks vertex
positions (float32 tolerance), triangles and per-face owner ids against EXPECTED.json.
"""
import json
import os
import struct
import sys

PROBLEMS = []

SIZES = {"char": "b", "uchar": "B", "short": "h", "ushort": "H", "int": "i", "uint": "I",
         "float": "f", "double": "d", "int8": "b", "uint8": "B", "int32": "i",
         "uint32": "I", "float32": "f", "float64": "d"}


def parse_ply(path):
    data = open(path, "rb").read()
    end = data.index(b"end_header\n") + len(b"end_header\n")
    lines = data[:end].decode("ascii").splitlines()
    if lines[0] != "ply" or lines[1] != "format binary_little_endian 1.0":
        raise ValueError(f"{path}: not binary little-endian PLY: {lines[:2]}")
    elements = []
    for line in lines[2:]:
        words = line.split()
        if words[0] == "element":
            elements.append((words[1], int(words[2]), []))
        elif words[0] == "property":
            elements[-1][2].append(words[1:])
    pos = end
    out = {}
    for name, count, props in elements:
        rows = []
        for _ in range(count):
            row = {}
            for p in props:
                if p[0] == "list":
                    (n,) = struct.unpack_from("<" + SIZES[p[1]], data, pos)
                    pos += struct.calcsize(SIZES[p[1]])
                    fmt = "<%d%s" % (n, SIZES[p[2]])
                    row[p[3]] = list(struct.unpack_from(fmt, data, pos))
                    pos += struct.calcsize(fmt)
                else:
                    fmt = "<" + SIZES[p[0]]
                    (row[p[1]],) = struct.unpack_from(fmt, data, pos)
                    pos += struct.calcsize(fmt)
            rows.append(row)
        out[name] = rows
    if pos != len(data):
        raise ValueError(f"{path}: {len(data) - pos} trailing bytes")
    return out


def check(path, exp, owner_name):
    try:
        ply = parse_ply(path)
    except (OSError, ValueError, struct.error) as exc:
        PROBLEMS.append(str(exc))
        return
    verts, faces = ply.get("vertex", []), ply.get("face", [])
    if len(verts) != len(exp["points"]) or len(faces) != exp["cells"]:
        PROBLEMS.append(f"{path}: {len(verts)} vertices / {len(faces)} faces, expected "
                        f"{len(exp['points'])} / {exp['cells']}")
        return
    for i, (v, w) in enumerate(zip(verts, exp["points"])):
        got = (v["x"], v["y"], v["z"])
        if any(abs(g - e) > 1e-6 * max(1.0, abs(e)) for g, e in zip(got, w)):
            PROBLEMS.append(f"{path}: vertex {i} = {got}, expected {w}")
            return
    if [f["vertex_indices"] for f in faces] != exp["triangles"]:
        PROBLEMS.append(f"{path}: triangles differ from the meshes")
    if [f[owner_name] for f in faces] != exp["cell_data"][owner_name]:
        PROBLEMS.append(f"{path}: {owner_name} per face differs")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    out, expected_path = sys.argv[1], sys.argv[2]
    with open(expected_path) as f:
        expected = json.load(f)
    ply_dir = os.path.join(out, "ply")
    for fr in expected["frames"]:
        check(os.path.join(ply_dir, f"frame_{fr['index']:06d}.ply"), fr["particles"], "particle_id")
    check(os.path.join(ply_dir, "obstacles.ply"), expected["obstacles"], "obstacle_id")
    if PROBLEMS:
        for p in PROBLEMS:
            print(f"check_ply: {p}", file=sys.stderr)
        sys.exit(1)
    print(f"check_ply: OK ({len(expected['frames']) + 1} PLY files)")


if __name__ == "__main__":
    main()
