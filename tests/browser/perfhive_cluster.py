"""The processes a browser test needs, started and stopped by PID: perfhive-server with its web
console on loopback ports it chose itself, agents (this host's procfs, and replays of real
Windows hosts recorded in ../shared/fixtures), the perfhive CLI, and headless Chromium through
chromedriver.

Everything lives in one scratch directory removed at the end; every child is started with
PR_SET_PDEATHSIG, so it dies with the test process however that ends, and `stop_all` ends the
rest by PID (SIGTERM, then SIGKILL).
"""

import ctypes
import glob
import os
import re
import shutil
import signal
import struct
import subprocess
import tempfile
import time

_PR_SET_PDEATHSIG = 1


def _die_with_parent():
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except OSError:
        pass


# The fields of PERF_DATA_BLOCK a wall-clock shift touches (perfdata/winperf.h, data_block).
_SYSTEM_TIME = 36  # SYSTEMTIME: 8 little-endian WORDs
_PERF_TIME_100NSEC = 72  # LONGLONG


def _system_time_ms(raw):
    year, month, _weekday, day, hour, minute, second, millis = struct.unpack_from(
        "<8H", raw, _SYSTEM_TIME)
    import calendar
    return calendar.timegm((year, month, day, hour, minute, second)) * 1000 + millis


def shift_wall_clock(raw, shift_ms):
    """`raw` as its host would have written it had its wall clock stood `shift_ms` off:
    SystemTime and PerfTime100nSec moved, PerfTime (the host's monotonic clock) and every
    counter as they were (what tests/e2e's WithWallClockShifted does)."""
    raw = bytearray(raw)
    ms = _system_time_ms(raw) + shift_ms
    t = time.gmtime(ms // 1000)
    weekday = (t.tm_wday + 1) % 7  # SYSTEMTIME: Sunday is 0
    struct.pack_into("<8H", raw, _SYSTEM_TIME, t.tm_year, t.tm_mon, weekday, t.tm_mday,
                     t.tm_hour, t.tm_min, t.tm_sec, ms % 1000)
    (t100,) = struct.unpack_from("<q", raw, _PERF_TIME_100NSEC)
    struct.pack_into("<q", raw, _PERF_TIME_100NSEC, t100 + shift_ms * 10_000)
    return bytes(raw)


# PERF_DATA_BLOCK's fields an object's removal changes, and PERF_OBJECT_TYPE's it reads.
_TOTAL_BYTE_LENGTH = 20
_HEADER_LENGTH = 24
_NUM_OBJECT_TYPES = 28
_OBJECT_NAME_TITLE_INDEX = 12


def without_object(raw, object_index):
    """`raw` without the object whose name index is `object_index`, NumObjectTypes and
    TotalByteLength told: what a provider unloaded or disabled leaves of a host's snapshot (what
    tests/e2e's WithoutObject does)."""
    total, header, count = struct.unpack_from("<3I", raw, _TOTAL_BYTE_LENGTH)
    at = header
    for _ in range(count):
        (length,) = struct.unpack_from("<I", raw, at)
        (name_index,) = struct.unpack_from("<I", raw, at + _OBJECT_NAME_TITLE_INDEX)
        if name_index == object_index:
            without = bytearray(raw[:at] + raw[at + length:])
            struct.pack_into("<I", without, _TOTAL_BYTE_LENGTH, total - length)
            struct.pack_into("<I", without, _NUM_OBJECT_TYPES, count - 1)
            return bytes(without)
        at += length
    raise AssertionError("no object %d in the snapshot" % object_index)


def without_name(titles, index):
    """`titles` (the bytes of "Counter 009": UTF-16 index and name pairs, each ended by a NUL,
    the list by another) without the name of `index`: a damaged title database, the state
    `lodctr /R` repairs (what tests/e2e's WithoutName does)."""
    parts = titles.decode("utf-16-le").split("\0")
    kept = []
    found = False
    for k in range(0, len(parts) - 1, 2):
        if not parts[k]:
            break
        if parts[k] == str(index):
            found = True
        else:
            kept += parts[k:k + 2]
    if not found:
        raise AssertionError("no name of index %d in the title database" % index)
    return ("\0".join(kept) + "\0\0").encode("utf-16-le")


def shared_fixtures_dir(source_dir):
    """../shared/fixtures beside the project, or None when this clone has none."""
    path = os.environ.get("PERFHIVE_SHARED_DIR") or os.path.join(source_dir, "..", "shared")
    path = os.path.join(path, "fixtures")
    return path if os.path.isdir(path) else None


class Cluster:
    """A scratch directory and the processes started in it."""

    def __init__(self, server_binary, agent_binary, cli_binary, name="browser"):
        self.server_binary = server_binary
        self.agent_binary = agent_binary
        self.cli_binary = cli_binary
        self.scratch = tempfile.mkdtemp(prefix="perfhive-%s-" % name)
        self.processes = []  # (name, Popen)
        self.grpc_address = None
        self.console_url = None
        self.cli_flags = []
        self.agent_flags = []

    def path(self, name):
        return os.path.join(self.scratch, name)

    def write(self, name, text, mode=0o600):
        path = self.path(name)
        with open(path, "w") as out:
            out.write(text)
        os.chmod(path, mode)
        return path

    # Processes.

    def start(self, name, argv, env=None):
        log = open(self.path(name + ".log"), "ab")
        process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log,
                                   stderr=subprocess.STDOUT, preexec_fn=_die_with_parent,
                                   env=env)
        log.close()
        self.processes.append((name, process))
        return process

    def log(self, name):
        try:
            with open(self.path(name + ".log"), errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def stop(self, process, timeout=15):
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(10)

    def stop_all(self):
        """Stops every process this cluster started (newest first), by PID."""
        for _name, process in reversed(self.processes):
            try:
                self.stop(process)
            except Exception:  # keep stopping the others
                pass
        self.processes = []

    def remove(self):
        shutil.rmtree(self.scratch, ignore_errors=True)

    def run(self, argv, timeout=60, check=True):
        done = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=timeout)
        if check and done.returncode != 0:
            raise AssertionError("%s exited %d:\n%s%s" % (" ".join(argv), done.returncode,
                                                          done.stdout, done.stderr))
        return done

    # The server.

    def start_server(self, tokens=None, extra=()):
        """perfhive-server on 127.0.0.1 port 0 with its console on another port 0. With
        `tokens` (TOML text): TLS from its own CA (`perfhive-server init`) and those tokens;
        without, --insecure. Returns once the server printed both addresses."""
        data = self.path("server-data")
        argv = [self.server_binary, "--data", data, "--listen", "127.0.0.1:0",
                "--http-listen", "127.0.0.1:0"]
        if tokens is None:
            argv.append("--insecure")
            self.cli_flags = ["--insecure"]
            self.agent_flags = ["--insecure"]
        else:
            made = self.run([self.server_binary, "init", "--data", data, "--address", "127.0.0.1"])
            fingerprint = re.search(r"sha256:[0-9a-f]{64}", made.stdout)
            if not fingerprint:
                raise AssertionError("perfhive-server init printed no fingerprint:\n" +
                                     made.stdout + made.stderr)
            argv += ["--tokens", self.write("tokens.toml", tokens)]
            self.cli_flags = ["--ca-sha256", fingerprint.group(0)]
            self.agent_flags = ["--ca-sha256", fingerprint.group(0)]
        argv += list(extra)
        server = self.start("server", argv)
        deadline = time.time() + 30
        while time.time() < deadline:
            text = self.log("server")
            listening = re.search(r"perfhive-server: listening on (\S+)", text)
            console = re.search(r"perfhive-server: console on (https?://\S+)", text)
            if listening and console:
                self.grpc_address = listening.group(1)
                self.console_url = console.group(1)
                if not self.console_url.endswith("/"):
                    self.console_url += "/"
                return server
            if server.poll() is not None:
                break
            time.sleep(0.05)
        raise AssertionError("perfhive-server did not print its addresses:\n" + self.log("server"))

    # Agents.

    def start_procfs_agent(self, token_file=None, interval="1s", costly="1700ms", extra=()):
        argv = [self.agent_binary, "run", "--server", self.grpc_address, "--interval", interval,
                "--query", "Global@" + interval, "--query", "Costly@" + costly,
                "--spool-dir", self.path("spool-procfs")] + self.agent_flags
        if token_file:
            argv += ["--token-file", token_file]
        return self.start("agent-procfs", argv + list(extra))

    def start_replay_agent(self, replay_dir, host_name, token_file=None, interval="100ms",
                           labels=()):
        """`labels`: "role=web" and the like, each an agent's --label."""
        argv = [self.agent_binary, "run", "--server", self.grpc_address, "--source", "replay",
                "--replay", replay_dir, "--host-name", host_name, "--interval", interval,
                "--spool-dir", self.path("spool-" + host_name.lower()),
                "--timeout", "600s"] + self.agent_flags
        if token_file:
            argv += ["--token-file", token_file]
        for label in labels:
            argv += ["--label", label]
        return self.start("agent-" + host_name.lower(), argv)

    def fixture_replay(self, fixtures, host, name, end_ms):
        """A replay directory of the real Windows host `host` of zenoss-windowsmonitor (two
        consecutive samples and its "Counter 009"), its wall clock moved so that its last
        sample was taken at `end_ms`. The fixtures are read in place; the shifted copies live
        in the scratch directory only."""
        source = os.path.join(fixtures, "realdata", "zenoss-windowsmonitor")
        files = sorted(glob.glob(os.path.join(source, host + "-[0-9].perf")))
        if not files:
            raise AssertionError("no recordings of %s in %s" % (host, source))
        raws = []
        for path in files:
            with open(path, "rb") as f:
                raws.append(f.read())
        times = [_system_time_ms(raw) for raw in raws]
        shift = end_ms - max(times)
        target = self.path("replay-" + name)
        os.makedirs(target, exist_ok=True)
        # The older sample first (one host's "-1" file is the older one).
        for i, (_, raw) in enumerate(sorted(zip(times, raws), key=lambda pair: pair[0])):
            with open(os.path.join(target, "%05d.perf" % i), "wb") as out:
                out.write(shift_wall_clock(raw, shift))
        shutil.copyfile(os.path.join(source, host + ".counters"),
                        os.path.join(target, "titles.bin"))
        return target

    # The CLI.

    def cli(self, args, token_file=None, timeout=60, check=True):
        argv = [self.cli_binary] + list(args) + ["--server", self.grpc_address] + self.cli_flags
        if token_file:
            argv += ["--token-file", token_file]
        return self.run(argv, timeout=timeout, check=check)


def find_chromium():
    name = "/usr/bin/chromium"  # Debian's package chromium
    return name if os.access(name, os.X_OK) else None


def start_browser(scratch, width=1400, height=900):
    """Headless Chromium through chromedriver, with a fresh profile in `scratch`."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = find_chromium()
    profile = tempfile.mkdtemp(prefix="chromium-", dir=scratch)
    for flag in ("--headless=new", "--disable-gpu", "--window-size=%d,%d" % (width, height),
                 "--user-data-dir=" + profile, "--ignore-certificate-errors",
                 "--disable-dev-shm-usage", "--no-first-run", "--disable-extensions",
                 "--lang=en-US"):
        options.add_argument(flag)
    if os.geteuid() == 0:
        options.add_argument("--no-sandbox")
    service = Service(executable_path="/usr/bin/chromedriver",
                      log_path=os.path.join(scratch, "chromedriver.log"))
    driver = webdriver.Chrome(service=service, options=options)
    driver.set_window_size(width, height)
    return driver
