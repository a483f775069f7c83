"""The systemd units of deploy/systemd/ (a template unit for N servers, the migrate step, the
backup and its timer) pass `systemd-analyze verify`, with /srv/rami/current (the running
release: scripts/release) a link to this checkout (its commands must exist and be executable),
and hang together: each server requires the migration and comes after it, the timer starts the
backup, every command is the running release's."""

import configparser
import re
import subprocess
from pathlib import Path

import pytest
from django.conf import settings

ROOT = Path(settings.BASE_DIR)
UNITS = ROOT / "deploy" / "systemd"


def unit(name: str) -> configparser.ConfigParser:
    parsed = configparser.ConfigParser(strict=False, interpolation=None)
    parsed.optionxform = str
    parsed.read_string((UNITS / name).read_text())
    return parsed


@pytest.mark.slow
def test_systemd_analyze_verify_passes(tmp_path):
    subprocess.run(  # noqa: S603 (our own script)
        [str(ROOT / "scripts" / "debian-tool"), "systemd-analyze", "systemd", "the unit tests"],
        check=True,
        timeout=600,
    )
    srv = tmp_path / "srv"
    srv.mkdir()
    (srv / "current").symlink_to(ROOT)
    for path in UNITS.iterdir():
        (tmp_path / path.name).write_text(path.read_text().replace("/srv/rami", str(srv)))
    names = ["rami@8001.service", "rami@8002.service", "rami-migrate.service"]
    names += ["rami-backup.service", "rami-backup.timer"]
    checked = subprocess.run(  # noqa: S603
        ["systemd-analyze", "verify", "--man=no", *(str(tmp_path / name) for name in names)],  # noqa: S607
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert checked.returncode == 0, checked.stderr
    assert checked.stderr.strip() == "", checked.stderr


def test_each_server_migrates_first_and_the_timer_backs_up():
    server = unit("rami@.service")
    assert "rami-migrate.service" in server["Unit"]["Requires"]
    assert "rami-migrate.service" in server["Unit"]["After"]
    assert server["Service"]["ExecStart"] == "/srv/rami/current/scripts/serve 127.0.0.1 %i"
    assert server["Service"]["KillMode"] == "mixed"
    migrate = unit("rami-migrate.service")
    assert migrate["Service"]["Type"] == "oneshot"
    assert migrate["Service"]["ExecStart"].endswith("manage.py migrate --no-input")
    timer = unit("rami-backup.timer")
    assert timer["Timer"]["Persistent"] == "true"
    assert "Unit" not in timer["Timer"]  # rami-backup.timer starts rami-backup.service
    backup = unit("rami-backup.service")
    assert backup["Service"]["ExecStart"] == "/srv/rami/current/scripts/backup /var/backups/rami"


def test_every_command_of_the_units_is_in_the_repository():
    for path in UNITS.iterdir():
        for command in re.findall(r"^Exec\w+=(\S+)", path.read_text(), re.MULTILINE):
            assert command.startswith("/srv/rami/current/"), (path.name, command)
            local = Path(command.replace("/srv/rami/current", str(ROOT)))
            if local.parts[-2:] == (".venv", "bin") or ".venv" in local.parts:
                continue  # made by the install (docs/deploy.md)
            assert local.is_file(), (path.name, command)
            assert local.stat().st_mode & 0o111, (path.name, command)


def test_every_unit_runs_the_release_current_points_to():
    for path in UNITS.glob("*.service"):
        service = unit(path.name)["Service"]
        assert service["WorkingDirectory"] == "/srv/rami/current", path.name


def test_the_proxy_names_the_servers_the_units_start():
    config = (ROOT / "deploy" / "nginx" / "rami.conf").read_text()
    ports = re.findall(r"server 127\.0\.0\.1:(\d+)", config)
    assert ports == ["8001", "8002"]
    assert "rami@8001" in config and "rami@8002" in config
