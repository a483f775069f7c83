"""The app installs to a phone's home screen: Chromium finds the manifest and no error in it."""

from playwright.sync_api import Page


def test_chromium_reports_no_manifest_errors(page: Page):
    page.goto("/")
    cdp = page.context.new_cdp_session(page)
    manifest = cdp.send("Page.getAppManifest")
    assert manifest["url"].endswith("/manifest.webmanifest")
    assert manifest["errors"] == []
    parsed = manifest["manifest"]
    base = page.url.rstrip("/")
    assert (parsed["name"], parsed["display"], parsed["startUrl"]) == (
        "Rami score keeper",
        "kStandalone",
        base + "/",
    )
    assert {icon["sizes"] for icon in parsed["icons"]} >= {"192x192", "512x512"}
    # A test browser profile counts as incognito; nothing else may stand in the way.
    errors = cdp.send("Page.getInstallabilityErrors")["installabilityErrors"]
    assert [error["errorId"] for error in errors if error["errorId"] != "in-incognito"] == []
