#!/usr/bin/env python3
"""check's CI reports read by real consumers: the SARIF log validated with
jsonschema against an embedded schema of SARIF 2.1.0's required structure (the
published schema is not on this machine, and the tests run without network), the
JUnit report parsed by Python's xml.etree. Exit 77 (SKIPPED) without jsonschema.

    check_reports_test.py CONVO_BINARY SOURCE_DIR
"""
import json
import subprocess
import sys
import xml.etree.ElementTree as ET

try:
    import jsonschema
except ImportError:
    print("SKIPPED: python3-jsonschema is not installed")
    sys.exit(77)

convo, source = sys.argv[1], sys.argv[2]
case = f"{source}/testdata/check/bad-lines-are-reported-not-fatal/session.jsonl"
clean = f"{source}/testdata/check/clean-request/request.json"

# The parts of SARIF 2.1.0 (sarif-schema-2.1.0.json) that a consumer such as
# GitHub code scanning requires: version, runs[].tool.driver.name, and for each
# result a message.text, a level from the enum, and physical locations with an
# artifact uri and a 1-based startLine.
SARIF = {
    "type": "object",
    "required": ["version", "runs"],
    "properties": {
        "version": {"const": "2.1.0"},
        "$schema": {"type": "string"},
        "runs": {
            "type": "array", "minItems": 1, "maxItems": 1,
            "items": {
                "type": "object",
                "required": ["tool", "results"],
                "properties": {
                    "tool": {
                        "type": "object", "required": ["driver"],
                        "properties": {"driver": {
                            "type": "object", "required": ["name", "version", "rules"],
                            "properties": {
                                "name": {"type": "string"},
                                "version": {"type": "string"},
                                "rules": {"type": "array", "items": {
                                    "type": "object", "required": ["id"],
                                    "properties": {
                                        "id": {"type": "string"},
                                        "shortDescription": {
                                            "type": "object", "required": ["text"]},
                                        "defaultConfiguration": {
                                            "type": "object",
                                            "properties": {"level": {"enum": [
                                                "none", "note", "warning", "error"]}}},
                                    }}},
                            }}},
                    },
                    "results": {"type": "array", "items": {
                        "type": "object",
                        "required": ["ruleId", "message", "level", "locations"],
                        "properties": {
                            "ruleId": {"type": "string"},
                            "ruleIndex": {"type": "integer", "minimum": 0},
                            "level": {"enum": ["none", "note", "warning", "error"]},
                            "message": {"type": "object", "required": ["text"],
                                        "properties": {"text": {"type": "string"}}},
                            "locations": {"type": "array", "minItems": 1, "items": {
                                "type": "object", "required": ["physicalLocation"],
                                "properties": {"physicalLocation": {
                                    "type": "object", "required": ["artifactLocation"],
                                    "properties": {
                                        "artifactLocation": {
                                            "type": "object", "required": ["uri"],
                                            "properties": {"uri": {"type": "string"}}},
                                        "region": {
                                            "type": "object", "required": ["startLine"],
                                            "properties": {"startLine": {
                                                "type": "integer", "minimum": 1}}},
                                    }}}}},
                        }}},
                },
            },
        },
    },
}


def run(*args):
    done = subprocess.run([convo, "check", *args], capture_output=True, text=True)
    if done.returncode not in (0, 1):
        sys.exit(f"convo check {' '.join(args)} exited {done.returncode}: {done.stderr}")
    return done.stdout


log = json.loads(run("--format", "sarif", case, clean))
jsonschema.validate(log, SARIF)
results = log["runs"][0]["results"]
rules = log["runs"][0]["tool"]["driver"]["rules"]
assert len(results) == 4, results
for result in results:
    assert rules[result["ruleIndex"]]["id"] == result["ruleId"], result

root = ET.fromstring(run("--format", "junit", case, clean))
cases = root.findall("./testsuite/testcase")
assert len(cases) == 2, [c.attrib for c in cases]
failures = root.findall(".//failure")
assert len(failures) == 4 and root.get("failures") == "4", root.attrib
assert all(f.get("type") for f in failures)
print("sarif: 4 results valid; junit: 2 test cases, 4 failures")
