"""The deployment files in deploy/ and the Dockerfile, checked as far as this
machine can (no Docker build, cluster or systemd here; CI's machine is the
same): YAML well-formed, the Helm chart rendered (by `helm` when installed,
else by tests/python/helm_render.py) and its objects consistent, compose
by `docker-compose config` when installed, the systemd unit by
`systemd-analyze verify`, the entrypoint's command line with a stand-in
server, the image's health probe against real servers, and the runtime
package list read off the server binary. A part whose tool is missing
skips.
"""
from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
import helm_render  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
DEPLOY = REPO / "deploy"
CHART = DEPLOY / "helm" / "arrayd"
HEALTHCHECK = DEPLOY / "arrayd-healthcheck"


def server_binary() -> str | None:
    path = os.environ.get("ARRAYD_SERVER_BIN") or str(REPO / "build" / "bin" / "arrayd")
    return path if os.path.exists(path) else None


# -- LICENSE ---------------------------------------------------------------------

def test_license_is_mit_of_the_arrayd_authors():
    text = (REPO / "LICENSE").read_text()
    assert text.startswith("MIT License")
    assert "Copyright (c) 2026 The arrayd authors" in text
    assert 'license = { text = "MIT" }' in (REPO / "client-python" / "pyproject.toml").read_text()


# -- Dockerfile ------------------------------------------------------------------

def _dockerfile() -> list[str]:
    """The Dockerfile's instructions, continuation lines joined."""
    text = (REPO / "Dockerfile").read_text()
    text = re.sub(r"\\\n", " ", text)
    return [ln.strip() for ln in text.splitlines()
            if ln.strip() and not ln.lstrip().startswith("#")]


def test_dockerfile_has_a_grpc_health_check_a_numeric_user_and_both_ports():
    lines = _dockerfile()
    froms = [ln for ln in lines if ln.startswith("FROM ")]
    assert froms == ["FROM ${BASE} AS build", "FROM ${RUNTIME_BASE}"]
    assert "ARG BASE=debian:12" in lines and "ARG RUNTIME_BASE=${BASE}" in lines
    health = [ln for ln in lines if ln.startswith("HEALTHCHECK")]
    assert len(health) == 1 and '["/usr/local/bin/arrayd-healthcheck"]' in health[0]
    user = [ln for ln in lines if ln.startswith("USER ")]
    assert user == ["USER ${ARRAYD_UID}:${ARRAYD_UID}"]
    assert "ARG ARRAYD_UID=7470" in lines
    expose = [ln for ln in lines if ln.startswith("EXPOSE ")]
    assert expose == ["EXPOSE 7470 9470"]
    # Exec form: the entrypoint's exec makes the server PID 1 and SIGTERM
    # reaches it.
    assert 'ENTRYPOINT ["/usr/local/bin/arrayd-entrypoint"]' in lines
    # Every file the build copies from the context exists.
    for ln in lines:
        if ln.startswith("COPY ") and "--from=" not in ln:
            for src in ln.split()[1:-1]:
                assert (REPO / src).exists(), src
    # No distribution-specific runtime library names: they are read off the
    # build stage (Debian's libgrpc++1.51 is libgrpc++1.51t64 on Ubuntu 24.04).
    runtime = "\n".join(lines[lines.index("FROM ${RUNTIME_BASE}"):])
    assert "libgrpc++1.51" not in runtime and "libprotobuf32" not in runtime
    assert "runtime_packages.sh" in "\n".join(lines)


@pytest.mark.skipif(shutil.which("dpkg-query") is None or shutil.which("ldd") is None,
                    reason="needs dpkg-query and ldd")
def test_runtime_packages_are_read_off_the_server_binary():
    binary = server_binary()
    if binary is None:
        pytest.skip("no server binary")
    r = subprocess.run([str(DEPLOY / "runtime_packages.sh"), binary],
                       capture_output=True, text=True, timeout=60)
    bundled = str(Path(binary).resolve().parents[1])
    unowned = [line for line in r.stderr.splitlines() if "no package holds" in line]
    if r.returncode != 0 and unowned and all(bundled in line for line in unowned):
        # A binary whose libraries travel beside it (the device machine's
        # bundle, deploy/device_bundle.sh), not installed from packages.
        pytest.skip("the server's libraries are bundled beside it, not from packages")
    assert r.returncode == 0, r.stderr
    packages = r.stdout.split()
    assert packages == sorted(set(packages))
    assert any(p.startswith("libgrpc++") for p in packages), packages
    assert any(p.startswith("libprotobuf") for p in packages), packages
    assert "libc6" not in packages
    assert not any(p.startswith(("cuda-", "libcublas")) for p in packages)


def test_runtime_packages_refuses_a_binary_with_a_missing_library(tmp_path):
    if shutil.which("dpkg-query") is None or shutil.which("cc") is None:
        pytest.skip("needs dpkg-query and a C compiler")
    (tmp_path / "lib.c").write_text("int f(void) { return 1; }\n")
    (tmp_path / "main.c").write_text("int f(void); int main(void) { return f(); }\n")
    subprocess.run(["cc", "-shared", "-fPIC", "-o", tmp_path / "libgone.so",
                    tmp_path / "lib.c"], check=True)
    subprocess.run(["cc", "-o", tmp_path / "prog", tmp_path / "main.c",
                    f"-L{tmp_path}", "-lgone"], check=True)
    (tmp_path / "libgone.so").unlink()
    r = subprocess.run([str(DEPLOY / "runtime_packages.sh"), str(tmp_path / "prog")],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode != 0 and "not found" in r.stderr


# -- the entrypoint ----------------------------------------------------------------

FAKE_SERVER = """#!/bin/sh
if [ "$1" = --help ]; then
  [ -n "${FAKE_METRICS:-}" ] && echo '  --metrics-listen ADDR  Prometheus metrics'
  exit 0
fi
echo "pid=$$"
echo "umask=$(umask)"
for a in "$@"; do echo "arg=$a"; done
"""


def _entrypoint(tmp: Path, args: list[str], env: dict[str, str]) -> tuple[int, list[str], str]:
    fake = tmp / "arrayd"
    fake.write_text(FAKE_SERVER)
    fake.chmod(0o755)
    full = {"PATH": os.environ["PATH"], "ARRAYD_BIN": str(fake),
            "ARRAYD_RUN_DIR": str(tmp / "run"), "ARRAYD_CONF_DIR": str(tmp / "conf"), **env}
    p = subprocess.Popen([str(DEPLOY / "docker-entrypoint.sh"), *args], env=full,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = p.communicate(timeout=30)
    lines = out.splitlines()
    # exec: the server is the entrypoint's process (PID 1 in a container).
    assert lines[0] == f"pid={p.pid}"
    return p.returncode, lines[1:], err


def _args(lines: list[str]) -> list[str]:
    return [ln[4:] for ln in lines if ln.startswith("arg=")]


def test_entrypoint_serves_the_socket_only_and_appends_the_users_flags(tmp_path):
    rc, lines, err = _entrypoint(tmp_path, ["--backend", "cpu"], {})
    assert rc == 0, err
    assert _args(lines) == ["--listen", f"unix:{tmp_path}/run/arrayd.sock",
                            "--backend", "auto", "--backend", "cpu"]


def test_entrypoint_adds_tls_and_tokens_when_mounted(tmp_path):
    tls = tmp_path / "conf" / "tls"
    tls.mkdir(parents=True)
    for name in ("server.crt", "server.key", "client-ca.crt"):
        (tls / name).write_text("x")
    (tmp_path / "conf" / "tokens").write_text("x" * 16 + " alice\n")
    rc, lines, err = _entrypoint(tmp_path, [], {})
    assert rc == 0, err
    args = _args(lines)
    assert args[args.index("--listen", 2) + 1] == "0.0.0.0:7470"
    assert args[args.index("--tls-cert") + 1] == f"{tls}/server.crt"
    assert args[args.index("--tls-key") + 1] == f"{tls}/server.key"
    assert args[args.index("--tls-client-ca") + 1] == f"{tls}/client-ca.crt"
    assert args[args.index("--auth-tokens") + 1] == f"{tmp_path}/conf/tokens"


def test_entrypoint_warns_about_tls_without_client_authentication(tmp_path):
    tls = tmp_path / "conf" / "tls"
    tls.mkdir(parents=True)
    for name in ("server.crt", "server.key"):
        (tls / name).write_text("x")
    rc, lines, err = _entrypoint(tmp_path, [], {})
    assert "no client authentication" in err
    assert "--auth-tokens" not in _args(lines)


def test_entrypoint_passes_metrics_listen_only_to_a_server_that_has_it(tmp_path):
    env = {"ARRAYD_METRICS_LISTEN": "0.0.0.0:9470"}
    rc, lines, err = _entrypoint(tmp_path, [], {**env, "FAKE_METRICS": "1"})
    args = _args(lines)
    assert args[args.index("--metrics-listen") + 1] == "0.0.0.0:9470"
    rc, lines, err = _entrypoint(tmp_path, [], env)
    assert "--metrics-listen" not in _args(lines) and "ignored" in err
    rc, lines, err = _entrypoint(tmp_path, [], {"FAKE_METRICS": "1"})
    assert "--metrics-listen" not in _args(lines)


def test_entrypoint_sets_the_umask_it_is_given(tmp_path):
    rc, lines, err = _entrypoint(tmp_path, [], {"ARRAYD_UMASK": "0007"})
    assert "umask=0007" in lines


# -- the health probe --------------------------------------------------------------

def _curl_has_http2() -> bool:
    if shutil.which("curl") is None or shutil.which("od") is None:
        return False
    v = subprocess.run(["curl", "-V"], capture_output=True, text=True).stdout
    return "HTTP2" in v


needs_curl = pytest.mark.skipif(not _curl_has_http2(), reason="needs curl with HTTP/2")


def _probe(socket: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(HEALTHCHECK), socket], capture_output=True, text=True,
                          timeout=30, env={**os.environ, "ARRAYD_HEALTH_TIMEOUT": "3"})


@needs_curl
def test_healthcheck_is_serving_against_the_test_server(server_address):
    if not server_address.startswith("unix:"):
        pytest.skip("the probe speaks to a unix socket")
    r = _probe(server_address)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.strip() == "SERVING"


@needs_curl
def test_healthcheck_fails_without_a_server(tmp_path):
    r = _probe(str(tmp_path / "none.sock"))
    assert r.returncode == 1 and "no answer" in r.stdout


@needs_curl
def test_healthcheck_fails_when_the_server_hangs_or_has_stopped():
    binary = server_binary()
    if binary is None:
        pytest.skip("no server binary")
    tmp = tempfile.mkdtemp(prefix="arrayd-hc-")
    sock = f"{tmp}/arrayd.sock"
    proc = subprocess.Popen([binary, "--listen", f"unix:{sock}", "--backend", "cpu"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            stdin=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while _probe(sock).returncode != 0:
            assert proc.poll() is None and time.monotonic() < deadline, "server did not start"
            time.sleep(0.1)
        # A stopped (hung) server does not answer within the timeout.
        proc.send_signal(signal.SIGSTOP)
        r = _probe(sock)
        proc.send_signal(signal.SIGCONT)
        assert r.returncode == 1, r.stdout
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
        r = _probe(sock)
        assert r.returncode == 1, r.stdout
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        shutil.rmtree(tmp, ignore_errors=True)


# -- docker compose ----------------------------------------------------------------

def _compose() -> dict:
    return yaml.safe_load((DEPLOY / "compose.yaml").read_text())


def test_compose_has_cpu_and_cuda_services_with_the_socket_metrics_and_health():
    services = _compose()["services"]
    cpu, cuda = services["arrayd"], services["arrayd-cuda"]
    assert cpu["profiles"] == ["cpu"] and cuda["profiles"] == ["cuda"]
    devices = cuda["deploy"]["resources"]["reservations"]["devices"]
    assert devices == [{"driver": "nvidia", "count": 1, "capabilities": ["gpu"]}]
    assert "deploy" not in cpu
    assert cuda["build"]["args"] == {
        "BASE": "nvidia/cuda:13.0.0-devel-ubuntu24.04",
        "RUNTIME_BASE": "nvidia/cuda:13.0.0-runtime-ubuntu24.04"}
    for s in (cpu, cuda):
        assert "arrayd-run:/run/arrayd" in s["volumes"]
        # Metrics reach the host's loopback only.
        assert "127.0.0.1:9470:9470" in s["ports"]
        assert s["environment"]["ARRAYD_METRICS_LISTEN"] == "0.0.0.0:9470"
        assert s["healthcheck"]["test"] == ["CMD", "/usr/local/bin/arrayd-healthcheck"]
        assert s["restart"] == "unless-stopped"  # exit 70 after a GPU fault restarts
    assert "arrayd-run" in _compose()["volumes"]


def test_compose_config_is_valid_for_docker_compose():
    if shutil.which("docker-compose"):
        cmd = ["docker-compose"]
    elif shutil.which("docker") and subprocess.run(
            ["docker", "compose", "version"], capture_output=True).returncode == 0:
        cmd = ["docker", "compose"]
    else:
        pytest.skip("no docker compose")
    for profile in ("cpu", "cuda"):
        r = subprocess.run([*cmd, "-f", str(DEPLOY / "compose.yaml"), "--profile", profile,
                            "config", "-q"], capture_output=True, text=True, timeout=60,
                           cwd=DEPLOY)
        assert r.returncode == 0, r.stderr


# -- systemd -------------------------------------------------------------------------

def _unit() -> dict[str, list[str]]:
    keys: dict[str, list[str]] = {}
    for ln in (DEPLOY / "arrayd.service").read_text().splitlines():
        if "=" in ln and not ln.startswith(("#", "[")):
            k, v = ln.split("=", 1)
            keys.setdefault(k, []).append(v)
    return keys


def test_systemd_unit_drains_on_sigterm_and_restarts_after_a_gpu_fault():
    u = _unit()
    assert u["Type"] == ["exec"]
    assert u["KillSignal"] == ["SIGTERM"] and u["TimeoutStopSec"] == ["30"]
    assert u["Restart"] == ["on-failure"]
    assert u["User"] == ["arrayd"] and u["RuntimeDirectory"] == ["arrayd"]
    assert u["ExecStart"][0].startswith("/usr/bin/arrayd --listen unix:/run/arrayd/arrayd.sock")
    # The server refuses a socket directory that the group can write.
    assert u["RuntimeDirectoryMode"] == ["0750"] and u["UMask"] == ["0007"]
    sysusers = (DEPLOY / "arrayd-sysusers.conf").read_text()
    assert re.search(r"^u arrayd ", sysusers, re.M)
    assert not (DEPLOY / "arrayd.socket").exists()  # the server cannot take a socket


def test_systemd_unit_verifies(tmp_path):
    if shutil.which("systemd-analyze") is None:
        pytest.skip("no systemd-analyze")
    # verify wants ExecStart's program to exist: any executable stands in.
    text = (DEPLOY / "arrayd.service").read_text().replace("/usr/bin/arrayd ", "/bin/true ")
    unit = tmp_path / "arrayd.service"
    unit.write_text(text)
    r = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True,
                       text=True, timeout=60)
    # Unknown keys and bad values are warnings naming the file, not an exit code.
    complaints = [ln for ln in r.stderr.splitlines() if "arrayd.service" in ln]
    assert r.returncode == 0 and not complaints, r.stderr


def test_systemd_verify_would_catch_a_bad_key(tmp_path):
    if shutil.which("systemd-analyze") is None:
        pytest.skip("no systemd-analyze")
    text = (DEPLOY / "arrayd.service").read_text().replace("/usr/bin/arrayd ", "/bin/true ")
    unit = tmp_path / "arrayd.service"
    unit.write_text(text.replace("KillMode=mixed", "KillMode=bogus"))
    r = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True,
                       text=True, timeout=60)
    assert "arrayd.service" in r.stderr


# -- the Helm chart --------------------------------------------------------------------

def test_chart_files_are_yaml():
    chart = yaml.safe_load((CHART / "Chart.yaml").read_text())
    assert chart["apiVersion"] == "v2" and chart["name"] == "arrayd"
    values = yaml.safe_load((CHART / "values.yaml").read_text())
    assert values["kind"] == "DaemonSet" and values["probes"]["type"] == "exec"


def _objects(values: dict | None = None) -> dict[str, dict]:
    objs = helm_render.render_objects(CHART, values)
    return {o["kind"]: o for o in objs}


def _check_workload(w: dict) -> dict:
    """Consistency any workload must have; returns its server container."""
    spec = w["spec"]
    pod = spec["template"]["spec"]
    labels = spec["template"]["metadata"]["labels"]
    assert spec["selector"]["matchLabels"].items() <= labels.items()
    volumes = {v["name"] for v in pod["volumes"]}
    for c in pod["containers"] + pod.get("initContainers", []):
        for m in c.get("volumeMounts", []):
            assert m["name"] in volumes, m
    assert pod["securityContext"]["runAsNonRoot"] is True
    (server,) = [c for c in pod["containers"] if c["name"] == "arrayd"]
    assert server["securityContext"]["allowPrivilegeEscalation"] is False
    env = {e["name"]: e["value"] for e in server["env"]}
    assert env["ARRAYD_UMASK"] == "0007"
    assert {m["mountPath"] for m in server["volumeMounts"]} >= {"/run/arrayd"}
    for probe in ("livenessProbe", "readinessProbe"):
        assert "exec" in server[probe] or "grpc" in server[probe]
    return server


def test_chart_default_is_a_daemonset_on_gpu_nodes_with_exec_probes():
    objs = _objects()
    assert set(objs) == {"DaemonSet", "Service"}
    ds = objs["DaemonSet"]
    server = _check_workload(ds)
    assert server["resources"]["limits"]["nvidia.com/gpu"] == 1
    assert server["livenessProbe"]["exec"]["command"] == [
        "/usr/local/bin/arrayd-healthcheck", "/run/arrayd/arrayd.sock"]
    pod = ds["spec"]["template"]["spec"]
    assert pod["nodeSelector"] == {"nvidia.com/gpu.present": "true"}
    assert {"key": "nvidia.com/gpu", "operator": "Exists",
            "effect": "NoSchedule"} in pod["tolerations"]
    (sock,) = [v for v in pod["volumes"] if v["name"] == "socket"]
    assert sock["hostPath"]["path"] == "/run/arrayd"
    assert pod["initContainers"][0]["command"][-1] == (
        "chown 7470:7470 /run/arrayd && chmod 0750 /run/arrayd")
    # No TCP listener without TLS: the Service carries only the metrics.
    svc = objs["Service"]
    assert [p["name"] for p in svc["spec"]["ports"]] == ["metrics"]
    assert svc["spec"]["selector"] == ds["spec"]["selector"]["matchLabels"]
    assert [p["name"] for p in server["ports"]] == ["metrics"]
    assert {"name": "ARRAYD_METRICS_LISTEN", "value": "0.0.0.0:9470"} in server["env"]


def test_chart_deployment_with_tls_tokens_and_a_service_monitor():
    objs = _objects({
        "kind": "Deployment", "replicas": 2, "socket": {"type": "emptyDir"},
        "tls": {"enabled": True, "secretName": "arrayd-tls", "clientCA": True},
        "auth": {"enabled": True, "secretName": "arrayd-tokens"},
        "metrics": {"serviceMonitor": {"enabled": True, "labels": {"release": "prom"}}},
        "server": {"extraArgs": ["--tenant-quota", "8589934592"]},
    })
    assert set(objs) == {"Deployment", "Service", "ServiceMonitor"}
    dep = objs["Deployment"]
    assert dep["spec"]["replicas"] == 2 and "strategy" not in dep["spec"]
    server = _check_workload(dep)
    assert server["args"][-2:] == ["--tenant-quota", "8589934592"]
    pod = dep["spec"]["template"]["spec"]
    vols = {v["name"]: v for v in pod["volumes"]}
    assert vols["socket"] == {"name": "socket", "emptyDir": {}}
    assert vols["tls"]["secret"]["secretName"] == "arrayd-tls"
    assert [i["path"] for i in vols["tls"]["secret"]["items"]] == [
        "server.crt", "server.key", "client-ca.crt"]  # the entrypoint's names
    assert vols["tokens"]["secret"]["items"] == [{"key": "tokens", "path": "tokens"}]
    mounts = {m["name"]: m for m in server["volumeMounts"]}
    assert mounts["tls"]["mountPath"] == "/etc/arrayd/tls"
    assert mounts["tokens"]["mountPath"] == "/etc/arrayd/tokens"
    assert mounts["tokens"]["subPath"] == "tokens"
    svc_ports = {p["name"]: p for p in objs["Service"]["spec"]["ports"]}
    assert svc_ports["grpc"]["port"] == 7470 and svc_ports["grpc"]["targetPort"] == "grpc"
    assert {p["name"] for p in server["ports"]} == {"grpc", "metrics"}
    sm = objs["ServiceMonitor"]
    assert sm["apiVersion"] == "monitoring.coreos.com/v1"
    assert sm["metadata"]["labels"]["release"] == "prom"
    assert sm["spec"]["endpoints"][0]["port"] == "metrics"
    assert sm["spec"]["endpoints"][0]["path"] == "/metrics"
    assert sm["spec"]["selector"]["matchLabels"] == dep["spec"]["selector"]["matchLabels"]


def test_chart_deployment_on_a_host_socket_is_recreated():
    dep = _objects({"kind": "Deployment"})["Deployment"]
    assert dep["spec"]["strategy"] == {"type": "Recreate"}


def test_chart_grpc_probes_use_the_kubelets_grpc_probe_on_7470():
    objs = _objects({"probes": {"type": "grpc"}, "insecurePlaintextTCP": True})
    server = _check_workload(objs["DaemonSet"])
    for probe in ("livenessProbe", "readinessProbe"):
        assert server[probe]["grpc"] == {"port": 7470, "service": ""}
    assert server["args"][-3:] == ["--listen", "0.0.0.0:7470", "--insecure"]


def test_chart_without_gpu_metrics_or_tcp():
    objs = _objects({"gpu": {"enabled": False}, "metrics": {"enabled": False}})
    assert set(objs) == {"DaemonSet"}  # no port to serve
    server = _check_workload(objs["DaemonSet"])
    assert "nvidia.com/gpu" not in server["resources"]["limits"]
    assert {"name": "ARRAYD_METRICS_LISTEN", "value": "off"} in server["env"]


@pytest.mark.parametrize("values, message", [
    ({"tls": {"enabled": True, "secretName": "s"}}, "client authentication"),
    ({"tls": {"enabled": True, "clientCA": True}}, "tls.secretName is required"),
    ({"auth": {"enabled": True}}, "auth.secretName is required"),
    ({"probes": {"type": "grpc"}}, "does not speak TLS"),
    ({"tls": {"enabled": True, "secretName": "s", "clientCA": True},
      "insecurePlaintextTCP": True}, "choose one"),
    ({"kind": "StatefulSet"}, "DaemonSet or Deployment"),
])
def test_chart_refuses_settings_the_server_would_refuse(values, message):
    with pytest.raises(helm_render.RenderFailure, match=message):
        helm_render.render_chart(CHART, values)


def test_renderer_catches_a_misspelt_value():
    with pytest.raises(helm_render.TemplateError, match="no field"):
        helm_render._Renderer({"Values": {}}, {}).pipeline(".Values.missing", {"Values": {}})


VALUE_SETS = [
    {},
    {"kind": "Deployment", "socket": {"type": "emptyDir"},
     "tls": {"enabled": True, "secretName": "t", "clientCA": True},
     "auth": {"enabled": True, "secretName": "a"},
     "metrics": {"serviceMonitor": {"enabled": True}}},
    {"probes": {"type": "grpc"}, "insecurePlaintextTCP": True, "gpu": {"enabled": False}},
]


@pytest.mark.skipif(shutil.which("helm") is None, reason="no helm binary")
@pytest.mark.parametrize("values", VALUE_SETS)
def test_helm_renders_what_the_small_renderer_renders(values, tmp_path):
    vf = tmp_path / "values.yaml"
    vf.write_text(yaml.safe_dump(values))
    lint = subprocess.run(["helm", "lint", str(CHART), "-f", str(vf)],
                          capture_output=True, text=True, timeout=120)
    assert lint.returncode == 0, lint.stdout + lint.stderr
    r = subprocess.run(["helm", "template", "arrayd", str(CHART), "--namespace", "gpu",
                        "-f", str(vf)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    theirs = sorted((d for d in yaml.safe_load_all(r.stdout) if d),
                    key=lambda d: d["kind"])
    ours = sorted(helm_render.render_objects(CHART, values), key=lambda d: d["kind"])
    assert theirs == ours
