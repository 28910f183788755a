"""``GET /`` in a real browser: headless Chromium (the system's, driven by chromedriver through Selenium) loads the
page against a running service, sees its chart update after the service learns, and saves a screenshot in the
test's folder. Skipped when Chromium, chromedriver or Selenium is absent."""

import shutil

import pytest

from serve_helpers import TOKEN, require_serve_extra

require_serve_extra()
webdriver = pytest.importorskip("selenium.webdriver")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
DRIVER = shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(not (CHROMIUM and DRIVER), reason="needs chromium and chromedriver")
# a hang guard only: the page polls every second, the browser may be slow to start on a busy machine
PATIENCE = 120


def _browser(tmp_path):
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--disable-background-networking", "--disable-component-update", "--disable-sync",
                     "--no-first-run", f"--user-data-dir={tmp_path / 'profile'}", "--window-size=900,800"):
        options.add_argument(argument)
    return webdriver.Chrome(service=Service(DRIVER), options=options)


def _rounds(client, k, start):
    for i in range(start, start + k):
        y = 1 if i % 2 else -1
        answer = client.post("/predict_learn", json={"x": {"a": float(y), "b": 0.5}, "y": y})
        assert answer.status_code == 200, answer.text


def test_the_page_shows_the_service_learning(serve, tmp_path):
    from selenium.webdriver.support.ui import WebDriverWait

    server = serve(["--algo", "pa1"])
    with server.client() as client:
        _rounds(client, 4, 0)
        browser = _browser(tmp_path)
        try:
            browser.get(f"{server.url}/?token={TOKEN}")
            wait = WebDriverWait(browser, PATIENCE)
            wait.until(lambda b: b.find_element("id", "updates").text == "4")
            points = int(browser.find_element("id", "chart").get_attribute("data-points"))
            assert points >= 1
            line = browser.find_element("id", "line").get_attribute("points")
            _rounds(client, 6, 4)
            # the chart takes the next polls: more points, and the counters of the ten rounds learned
            wait.until(lambda b: b.find_element("id", "updates").text == "10"
                       and int(b.find_element("id", "chart").get_attribute("data-points")) > points)
            assert browser.find_element("id", "line").get_attribute("points") != line
            assert browser.find_element("id", "metric-name").text == "progressive accuracy"
            accuracy = float(browser.find_element("id", "metric").text)
            assert 0.0 <= accuracy <= 1.0
            assert "live" in browser.find_element("id", "status").text
            # the feedback pending and the versions of the service are on the page too
            shown = client.post("/predict", json={"x": {"a": 1.0}}).json()["id"]
            version = client.post("/versions").json()["version"]
            wait.until(lambda b: "olearn_feedback_pending 1" in b.find_element("id", "metrics").text
                       and f'"version": {version}' in b.find_element("id", "versions").text)
            assert browser.find_element("id", "versions-section").is_displayed()
            assert client.post("/learn", json={"id": shown, "y": 1}).status_code == 200
            browser.save_screenshot(str(tmp_path / "dashboard.png"))
            assert (tmp_path / "dashboard.png").stat().st_size > 0
            # without the token the page is refused, as every read
            browser.get(f"{server.url}/")
            assert "missing or wrong bearer token" in browser.page_source
        finally:
            browser.quit()


def test_the_page_shows_the_bound_beside_the_mistakes_measured_and_updates_it(serve, tmp_path):
    from selenium.webdriver.support.ui import WebDriverWait

    server = serve(["--algo", "perceptron"])
    with server.client() as client:
        _rounds(client, 4, 0)
        browser = _browser(tmp_path)
        try:
            browser.get(f"{server.url}/?token={TOKEN}")
            wait = WebDriverWait(browser, PATIENCE)
            wait.until(lambda b: "On the 4 rounds learned" in b.find_element("id", "bound-note").text)
            assert browser.find_element("id", "bound-section").is_displayed()
            shown = browser.find_element("id", "bound").text
            for row in client.get("/bound").json()["rows"]:  # each theorem, its measured count and its bound
                assert f"{row['theorem']} {row['quantity']} {row['measured']:g}" in shown
                assert f"{row['bound']:.6g}"[:5] in shown and row["holds"]
            _rounds(client, 6, 4)
            wait.until(lambda b: "On the 10 rounds learned" in b.find_element("id", "bound-note").text)
            rows = client.get("/bound").json()["rows"]
            assert rows and all(f"{row['measured']:g}" in browser.find_element("id", "bound").text for row in rows)
            browser.save_screenshot(str(tmp_path / "bound.png"))
        finally:
            browser.quit()


def test_a_learner_without_a_bound_shows_none(serve, tmp_path):
    from selenium.webdriver.support.ui import WebDriverWait

    server = serve(["--algo", "adagrad"])
    with server.client() as client:
        _rounds(client, 3, 0)
        assert client.get("/bound").json()["bounded"] is False
        browser = _browser(tmp_path)
        try:
            browser.get(f"{server.url}/?token={TOKEN}")
            # once the page has polled everything (the versions section shows after the bound's answer)
            wait = WebDriverWait(browser, PATIENCE)
            wait.until(lambda b: b.find_element("id", "versions-section").is_displayed()
                       and b.find_element("id", "updates").text == "3")
            assert not browser.find_element("id", "bound-section").is_displayed()
            assert browser.find_element("id", "bound").text == ""
        finally:
            browser.quit()
