"""A minimal W3C WebDriver client (the Python standard library only), enough to
drive Debian's chromium through chromium-driver: open a page, run a script,
move the mouse, read the console, take a screenshot."""

import base64
import json
import socket
import subprocess
import time
import urllib.error
import urllib.request

ELEMENT = "element-6066-11e4-a52e-4f735466cecf"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Browser:
    """Headless chromium under chromedriver; `with Browser() as b: ...`."""

    def __init__(self, driver="chromedriver", binary="/usr/bin/chromium", size=(1280, 900)):
        self.port = free_port()
        self.proc = subprocess.Popen(
            [driver, f"--port={self.port}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        self.base = f"http://127.0.0.1:{self.port}"
        deadline = time.time() + 30
        while True:
            try:
                self._call("GET", "/status")
                break
            except (urllib.error.URLError, ConnectionError):
                if time.time() > deadline:
                    raise RuntimeError("chromedriver did not start")
                time.sleep(0.1)
        caps = {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": binary,
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu",
                         "--disable-dev-shm-usage", f"--window-size={size[0]},{size[1]}"],
            },
            "goog:loggingPrefs": {"browser": "ALL"},
        }
        got = self._call("POST", "/session", {"capabilities": {"alwaysMatch": caps}})
        self.session = f"/session/{got['sessionId']}"

    def _call(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=120) as res:
                return json.load(res)["value"]
        except urllib.error.HTTPError as e:
            raise RuntimeError(f"webdriver {method} {path}: {e.read().decode()[:500]}") from None

    def cmd(self, method, path, body=None):
        return self._call(method, self.session + path, body)

    def get(self, url):
        self.cmd("POST", "/url", {"url": url})

    def run(self, script, *args):
        """Runs `script` (a function body; `arguments` holds args) and returns its value."""
        return self.cmd("POST", "/execute/sync", {"script": script, "args": list(args)})

    def wait(self, script, timeout=30, *args):
        """Polls `script` until it returns something truthy; returns that."""
        deadline = time.time() + timeout
        while True:
            value = self.run(script, *args)
            if value:
                return value
            if time.time() > deadline:
                raise TimeoutError(f"waited {timeout} s for: {script}")
            time.sleep(0.1)

    def element(self, css):
        return self.cmd("POST", "/element", {"using": "css selector", "value": css})[ELEMENT]

    def hover(self, css, dx=0, dy=0):
        """Moves the mouse to the centre of `css`'s element, offset by (dx, dy)."""
        origin = {ELEMENT: self.element(css)}
        move = {"type": "pointerMove", "duration": 0, "origin": origin, "x": dx, "y": dy}
        self.cmd("POST", "/actions", {"actions": [
            {"type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"}, "actions": [move]}
        ]})

    def console(self):
        """The browser's console entries since the last call."""
        return self.cmd("POST", "/se/log", {"type": "browser"})

    def screenshot(self):
        return base64.b64decode(self.cmd("GET", "/screenshot"))

    def close(self):
        try:
            self.cmd("DELETE", "")
        finally:
            self.proc.terminate()
            self.proc.wait(10)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
