"""A pipeline as a typed client writes it: every id parsed with uuid.UUID, every time with
datetime.fromisoformat, over every JSON operation of the demo's data: the Results API (v2/v3,
with the help centre's v2 details path) and the Legacy (v1) family, each id it needs found
through the product (the v1 highlight reel by the token the v2 reel list shows). Standard
library only (Debian's python3). Prints what it parsed as JSON; exits 1 at the first value
that does not parse, naming it."""
import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request
import uuid
from datetime import datetime

BASE, AUTH = os.environ["BASE_URL"], os.environ["AUTH_URL"]
TEST_ID = os.environ["TEST_ID"]
ID_KEYS = {"sessionId", "audienceId", "testPlanId", "uuid", "participantId", "taskGroupId", "testId",
           "clipUuid", "reelId", "videoUuid", "studyUuid", "sessionUuid"}
TIME_KEYS = {"startTime", "finishTime", "expiresAt", "orderedAt", "completedDateTime", "stateUpdatedAt",
             "createdAt", "updatedAt"}
# v1 names its numeric ids sessionId and id (the real document's integers): read as numbers, not UUIDs.
LEGACY_NUMERIC = {"sessionId"}
LEGACY = "/usertesting/api/v1"
parsed = {"ids": 0, "times": 0, "requests": 0, "legacyRequests": 0}


def token():
    # The real service's form B token URL, with only the host changed.
    body = urllib.parse.urlencode({"grant_type": "client_credentials", "scope": "studies:read",
                                   "client_id": os.environ["CLIENT_ID"],
                                   "client_secret": os.environ["CLIENT_SECRET"]}).encode()
    request = urllib.request.Request(f"{AUTH}/oauth2/aus1p3vtd8vtm4Bxv0h8/v1/token", data=body,
                                     headers={"Content-Type": "application/x-www-form-urlencoded"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)["access_token"]


TOKEN = token()


def get(path, missing_ok=False):
    parsed["requests"] += 1
    if path.startswith(LEGACY):
        parsed["legacyRequests"] += 1
    request = urllib.request.Request(BASE + path, headers={"Authorization": f"Bearer {TOKEN}"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            document = json.load(response)
    except urllib.error.HTTPError as error:
        if missing_ok and error.code == 404:
            return None
        raise
    check(document, path, path.startswith(LEGACY))
    return document


def check(node, where, legacy):
    if isinstance(node, list):
        for i, item in enumerate(node):
            check(item, f"{where}[{i}]", legacy)
    elif isinstance(node, dict):
        for key, value in node.items():
            at = f"{where}.{key}"
            if legacy and key in LEGACY_NUMERIC:
                try:
                    int(value)
                except (ValueError, TypeError):
                    sys.exit(f"{at}: {value!r} is not a number")
            elif key in ID_KEYS and value is not None:
                try:
                    uuid.UUID(value)
                except (ValueError, TypeError, AttributeError):
                    sys.exit(f"{at}: {value!r} is not a UUID")
                parsed["ids"] += 1
            elif key in TIME_KEYS and value is not None:
                try:
                    datetime.fromisoformat(value)
                except (ValueError, TypeError):
                    sys.exit(f"{at}: {value!r} is not an ISO 8601 time")
                parsed["times"] += 1
            elif key == "demographicsInfo":
                for i, demographic in enumerate(value):
                    uuid.UUID(demographic["id"])
                    parsed["ids"] += 1
            check(value, at, legacy)


sessions, offset, clip_uuids = [], 0, []
while True:
    page = get(f"/api/v2/sessionResults?testId={TEST_ID}&limit=25&offset={offset}")
    sessions += page["sessions"]
    offset += page["meta"]["pagination"]["limit"]
    if offset >= page["meta"]["pagination"]["totalCount"]:
        break
for session in sessions:
    get(f"/api/v3/sessionResults/{session['sessionId']}")
    get(f"/api/v2/sessionResults/{session['sessionId']}")
    get(f"/api/v2/sessionResults/{session['sessionId']}/videoDownloadUrl", missing_ok=True)
    clips = get(f"/api/v2/sessionResults/{session['sessionId']}/clips", missing_ok=True)
    for clip in (clips or {}).get("clips", []):
        get(f"/api/v2/sessionResults/{session['sessionId']}/clips/{clip['uuid']}")
        clip_uuids.append(clip["uuid"])
get(f"/api/v2/testResults/{TEST_ID}/qxScores")
for reel in get(f"/api/v2/testResults/{TEST_ID}/highlightreels")["reels"]:
    get(f"/api/v2/testResults/{TEST_ID}/highlightreels/{reel['uuid']}")
    get(f"{LEGACY}/highlightreel/{reel['highlightReelToken']}")

# The Legacy (v1) family: the workspaces, their studies, the demo study's completed sessions
# page by page, each session, and each clip the v2 clip lists named.
for workspace in get(f"{LEGACY}/workspaces"):
    get(f"{LEGACY}/workspaces/{workspace['uuid']}")
get(f"{LEGACY}/studies/{TEST_ID}")
legacy_sessions, page_path = [], f"{LEGACY}/studies/{TEST_ID}/completed-sessions"
while True:
    page = get(page_path)
    legacy_sessions += page["sessions"]
    if len(page["sessions"]) < 50:
        break
    page_path = f"{LEGACY}/studies/{TEST_ID}/completed-sessions?after={urllib.parse.quote(page['sessions'][-1]['cursor'])}"
if len(legacy_sessions) != len(sessions):
    sys.exit(f"v1 listed {len(legacy_sessions)} completed sessions, v2 {len(sessions)}")
for session in legacy_sessions:
    get(f"{LEGACY}/session/{session['sessionUuid']}")
for clip_uuid in clip_uuids:
    get(f"{LEGACY}/clip/{clip_uuid}")
print(json.dumps({"sessions": len(sessions), **parsed}))
