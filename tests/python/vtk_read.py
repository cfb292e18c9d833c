"""VTK's own XML PolyData reader with its error events caught, shared by check_vtk.py and
dump_vtk.py (both run as scripts from this folder, so Python finds this module)."""
import vtk


class ErrorCatcher:
    """Collects the events of a VTK ErrorEvent observer."""

    def __init__(self):
        self.messages = []

    def __call__(self, obj, event):
        self.messages.append(event)


def read_vtp(path, on_error):
    """Reads the .vtp at `path`; calls `on_error(message)` when VTK reports an error."""
    reader = vtk.vtkXMLPolyDataReader()
    catcher = ErrorCatcher()
    reader.AddObserver("ErrorEvent", catcher)
    reader.SetFileName(path)
    reader.Update()
    if catcher.messages or reader.GetErrorCode() != 0:
        on_error(f"{path}: VTK reader reported an error")
    return reader.GetOutput()
