# The routes-mix app's 1:2:1 mix as a Locust user (test/integration/locust.test.ts): /heavy,
# /light/:id (ids vary, one stats row by name) and /wait, no pause between requests.
import itertools

import locust.runners
from locust import HttpUser, constant, task

# Debian's python3-locust 2.12.1 was built without its version (""), and a master refuses a
# worker that sends an empty one as "pre 2.0"; -1 is Locust's own way to skip that check.
if not locust.runners.__version__:
    locust.runners.__version__ = -1

ids = itertools.count(1)


class Mix(HttpUser):
    wait_time = constant(0)

    @task(1)
    def heavy(self):
        self.client.get("/heavy")

    @task(2)
    def light(self):
        self.client.get(f"/light/{next(ids) % 1000}", name="/light/:id")

    @task(1)
    def wait(self):
        self.client.get("/wait")
