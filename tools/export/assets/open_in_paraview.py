# Opens an msdem export in ParaView: particles coloured by speed, obstacles, contacts.
# Written by `export` next to the VTK series it opens (the folder of this file).
#
#   paraview --script=vtk/open_in_paraview.py          the ParaView window, set up
#   pvpython vtk/open_in_paraview.py                    a render window ('q' quits)
#   pvbatch  vtk/open_in_paraview.py --screenshot out.png [--time T] [--size 1280 720]
#
# Options (after the script name):
#   --screenshot PNG   render the scene at --time (default: the last frame) into PNG, exit
#   --time T           simulated time [s] shown (default: the last frame)
#   --size W H         screenshot size in pixels (default 1280 720)
#   --glyphs           draw the particles from particles_state.pvd and the shape meshes
#                      (shape_NNN.vtp) even when the per-frame meshes particles.pvd exist
#
# Particles: the per-frame meshes (particles.pvd) when present; otherwise (export
# --no-vtk-meshes, or --glyphs) every particle state (particles_state.pvd, one point per
# centre of mass) is drawn as its shape's mesh by the "3D Glyphs" representation, placed
# at the centre of mass and turned by the 'orientation' quaternion (w, x, y, z). Either way
# each particle is coloured by its speed, the magnitude of its 'velocity' [m/s], on one
# colour scale for the whole run. Obstacles grey, contact points red.
import argparse
import math
import os
import sys

from paraview.simple import (
    ColorBy,
    GetActiveViewOrCreate,
    GetAnimationScene,
    GetColorTransferFunction,
    GetScalarBar,
    Interact,
    PVDReader,
    Render,
    SaveScreenshot,
    Show,
    Threshold,
    XMLPolyDataReader,
)
import paraview

HERE = os.path.dirname(os.path.abspath(__file__))


def parse_args(argv):
    p = argparse.ArgumentParser(description="Open an msdem export in ParaView.")
    p.add_argument("--screenshot", metavar="PNG")
    p.add_argument("--time", type=float)
    p.add_argument("--size", type=int, nargs=2, default=[1280, 720], metavar=("W", "H"))
    p.add_argument("--glyphs", action="store_true")
    # Under `paraview --script` there are no script arguments.
    return p.parse_args(argv)


def series(name):
    path = os.path.join(HERE, name)
    return PVDReader(registrationName=name, FileName=path) if os.path.isfile(path) else None


def shape_files():
    files = sorted(f for f in os.listdir(HERE) if f.startswith("shape_") and f.endswith(".vtp"))
    return [(int(f[len("shape_"):-len(".vtp")]), os.path.join(HERE, f)) for f in files]


def speed_range(state, times):
    """Smallest and largest speed of any particle at any time (particles_state.pvd)."""
    lo, hi = math.inf, -math.inf
    for t in times or [0.0]:
        state.UpdatePipeline(t)
        r = state.PointData["velocity"].GetRange(-1)  # -1: the vector's magnitude
        lo, hi = min(lo, r[0]), max(hi, r[1])
    return (lo, hi) if lo <= hi else (0.0, 1.0)


def speed_colouring(display, view, speeds):
    """Colours `display` by the magnitude of its 'velocity' over the fixed range `speeds`."""
    ColorBy(display, ("POINTS", "velocity", "Magnitude"))
    lut = GetColorTransferFunction("velocity")
    lut.VectorMode = "Magnitude"
    if speeds is None:
        display.RescaleTransferFunctionToDataRange(False, True)
    else:
        lo, hi = speeds
        lut.RescaleTransferFunction(lo, hi if hi > lo else lo + 1e-9)
        if hasattr(lut, "AutomaticRescaleRangeMode"):
            lut.AutomaticRescaleRangeMode = "Never"
    display.SetScalarBarVisibility(view, True)
    bar = GetScalarBar(lut, view)
    bar.Title = "speed [m/s]"
    bar.ComponentTitle = ""


def glyph_particles(state, view, speeds):
    """One 3D Glyphs representation per shape: the shape's mesh at every centre of mass."""
    displays = []
    for index, path in shape_files():
        shape = XMLPolyDataReader(registrationName=os.path.basename(path), FileName=[path])
        only = Threshold(registrationName=f"particles of shape {index}", Input=state)
        only.Scalars = ["POINTS", "shape"]
        if hasattr(only, "LowerThreshold"):
            only.LowerThreshold = index - 0.5
            only.UpperThreshold = index + 0.5
        else:  # ParaView before 5.10
            only.ThresholdRange = [index - 0.5, index + 0.5]
        d = Show(only, view)
        d.SetRepresentationType("3D Glyphs")
        d.GlyphType = shape
        d.Orient = 1
        d.OrientationMode = "Quaternion"
        d.SelectOrientationVectors = "orientation"
        d.Scaling = 0
        d.ScaleFactor = 1.0
        speed_colouring(d, view, speeds)
        displays.append(d)
    return displays


def frame_camera(view, bounds):
    """Looks at `bounds` (xmin, xmax, ymin, ymax, zmin, zmax) from the front (−y), above."""
    c = [(bounds[2 * i] + bounds[2 * i + 1]) / 2 for i in range(3)]
    r = max(0.5 * math.dist(bounds[0::2], bounds[1::2]), 1e-3)
    d = [0.35, -1.0, 0.55]
    n = math.sqrt(sum(x * x for x in d))
    dist = 1.15 * r / math.tan(math.radians(view.CameraViewAngle / 2))
    view.CameraFocalPoint = c
    view.CameraPosition = [c[i] + dist * d[i] / n for i in range(3)]
    view.CameraViewUp = [0.0, 0.0, 1.0]


def main(argv):
    args = parse_args(argv)
    view = GetActiveViewOrCreate("RenderView")
    view.OrientationAxesVisibility = 1
    if args.screenshot:
        view.ViewSize = list(args.size)  # fonts sized for this image, not scaled up

    obstacles = series("obstacles.pvd")
    if obstacles is not None:
        d = Show(obstacles, view)
        d.ColorArrayName = ["POINTS", ""]
        d.DiffuseColor = [0.75, 0.75, 0.72]
        d.AmbientColor = [0.75, 0.75, 0.72]

    meshes = None if args.glyphs else series("particles.pvd")
    state = series("particles_state.pvd")
    times = list(state.TimestepValues) if state is not None else []
    # Both representations colour every particle by the speed of its centre of mass, over
    # one range for the whole run.
    speeds = speed_range(state, times) if state is not None else None
    if meshes is not None:
        speed_colouring(Show(meshes, view), view, speeds)
    elif state is not None:
        glyph_particles(state, view, speeds)
    else:
        sys.exit(f"open_in_paraview: neither particles.pvd nor particles_state.pvd in {HERE}")

    contacts = series("contacts.pvd")
    if contacts is not None:
        d = Show(contacts, view)
        d.SetRepresentationType("Points")
        d.ColorArrayName = ["POINTS", ""]
        d.DiffuseColor = [0.85, 0.1, 0.1]
        d.AmbientColor = [0.85, 0.1, 0.1]
        d.PointSize = 6.0
        d.RenderPointsAsSpheres = 1

    scene = GetAnimationScene()
    scene.UpdateAnimationUsingDataTimeSteps()
    time = args.time if args.time is not None else (times[-1] if times else 0.0)
    scene.AnimationTime = time

    # The first render resets the camera to everything shown; then frame the particles
    # (first and shown frame), not the whole ground.
    Render(view)
    probe = state if state is not None else meshes
    bounds = None
    for t in sorted({times[0] if times else time, time}):
        probe.UpdatePipeline(t)
        b = probe.GetDataInformation().GetBounds()
        if b[0] <= b[1]:
            bounds = b if bounds is None else [
                min(bounds[i], b[i]) if i % 2 == 0 else max(bounds[i], b[i]) for i in range(6)
            ]
    if bounds is not None:
        pad = max(bounds[1] - bounds[0], bounds[3] - bounds[2], bounds[5] - bounds[4]) * 0.1
        if state is not None:  # centres of mass: add the largest particle's radius
            pad += state.PointData["bounding_radius"].GetRange()[1]
        frame_camera(view, [v - pad if i % 2 == 0 else v + pad for i, v in enumerate(bounds)])
    else:
        view.ResetCamera()
    Render(view)

    if args.screenshot:
        SaveScreenshot(args.screenshot, view, ImageResolution=list(args.size))
        print(f"open_in_paraview: wrote {args.screenshot} (t = {time} s)")
    elif not paraview.fromGUI:
        try:
            Interact(view)
        except RuntimeError as e:  # pvbatch or no display
            print(f"open_in_paraview: no interactive window ({e}); use --screenshot PNG")


main(sys.argv[1:] if not paraview.fromGUI else [])
