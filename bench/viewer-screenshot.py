# A screenshot of a page of vitals_view() (or any URL) by headless chromium after a real-time
# wait, through chromium's DevTools protocol: `--virtual-time-budget` takes the shot before
# the viewer has parsed a log of tens of MB in its web worker (bench/README.md, "The full
# arena's logs"). Standard library only (a minimal websocket client: no websocket package is
# installed here). Keep the PNG out of the repository.
#
#   python3 bench/viewer-screenshot.py URL OUT.png [WAIT_SECONDS=30] [WIDTH=1400] [HEIGHT=900] [JS]
#
# JS, when given, is evaluated after the wait (e.g. a click on a sample's row), and the shot
# taken 5 s later. Serve the logs first, in another R process:
#   Rscript -e 'vitals::vitals_view(dir, host = "127.0.0.1", port = 7788); repeat later::run_now(1)'
#   cdp_shot.py URL OUT.png WAIT_SECONDS [WIDTH HEIGHT] [JS to run before the shot]
import base64, json, os, socket, struct, subprocess, sys, tempfile, time, urllib.request

url, out = sys.argv[1], sys.argv[2]
wait = float(sys.argv[3]) if len(sys.argv) > 3 else 30.0
width = int(sys.argv[4]) if len(sys.argv) > 4 else 1400
height = int(sys.argv[5]) if len(sys.argv) > 5 else 900
js = sys.argv[6] if len(sys.argv) > 6 else None
port = 9333
proc = subprocess.Popen(["chromium", "--headless", "--no-sandbox", "--disable-gpu",
                         f"--window-size={width},{height}", f"--remote-debugging-port={port}",
                         "--user-data-dir=" + tempfile.mkdtemp(prefix="chrome-"), "about:blank"],
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
try:
    for _ in range(100):
        try:
            pages = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list"))
            pages = [p for p in pages if p.get("type") == "page"]
            if pages:
                break
        except Exception:
            pass
        time.sleep(0.2)
    ws_url = pages[0]["webSocketDebuggerUrl"]
    host_port, path = ws_url[len("ws://"):].split("/", 1)
    host, p = host_port.split(":")
    s = socket.create_connection((host, int(p)))
    key = base64.b64encode(os.urandom(16)).decode()
    s.sendall((f"GET /{path} HTTP/1.1\r\nHost: {host_port}\r\nUpgrade: websocket\r\n"
               f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
               "Sec-WebSocket-Version: 13\r\n\r\n").encode())
    resp = b""
    while b"\r\n\r\n" not in resp:
        resp += s.recv(1)
    buf = b""

    def recv_exact(n):
        global buf
        while len(buf) < n:
            chunk = s.recv(1 << 20)
            if not chunk:
                raise EOFError
            buf += chunk
        data, buf = buf[:n], buf[n:]
        return data

    def recv_msg():
        data = b""
        while True:
            b1, b2 = recv_exact(2)
            n = b2 & 0x7F
            if n == 126:
                n = struct.unpack(">H", recv_exact(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", recv_exact(8))[0]
            data += recv_exact(n)
            if b1 & 0x80:
                return data.decode()

    def send(obj):
        payload = json.dumps(obj).encode()
        mask = os.urandom(4)
        header = bytes([0x81])
        n = len(payload)
        if n < 126:
            header += bytes([0x80 | n])
        elif n < 65536:
            header += bytes([0x80 | 126]) + struct.pack(">H", n)
        else:
            header += bytes([0x80 | 127]) + struct.pack(">Q", n)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        s.sendall(header + mask + masked)

    ids = iter(range(1, 10**6))

    def call(method, params=None):
        i = next(ids)
        send({"id": i, "method": method, "params": params or {}})
        while True:
            msg = json.loads(recv_msg())
            if msg.get("id") == i:
                return msg

    call("Page.enable")
    call("Emulation.setDeviceMetricsOverride",
         {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
    t0 = time.time()
    call("Page.navigate", {"url": url})
    time.sleep(wait)
    if js:
        call("Runtime.evaluate", {"expression": js})
        time.sleep(5)
    shot = call("Page.captureScreenshot", {"format": "png"})
    open(out, "wb").write(base64.b64decode(shot["result"]["data"]))
    print(f"screenshot after {time.time() - t0:.1f} s: {out}")
finally:
    proc.kill()
