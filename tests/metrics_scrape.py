"""Reads a Prometheus text endpoint (`fjord run`'s /metrics) for the runtime tests."""
import socket
import urllib.request


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def scrape(port):
    """{series: value}, the series being the name with its labels as printed, e.g.
    'fjord_job_bucket_sorted_runs{job="j",partition="",bucket="0"}'; None while nothing answers."""
    try:
        text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=2).read()
    except OSError:
        return None
    values = {}
    for line in text.decode().splitlines():
        if line and not line.startswith("#"):
            series, value = line.rsplit(" ", 1)
            values[series] = float(value)
    return values


def named(values, name):
    """The series of metric `name` (without labels or with any), by their label text."""
    return {k[len(name):]: v for k, v in (values or {}).items()
            if k == name or k.startswith(name + "{")}
