#!/usr/bin/env bash
# e2e_schema_invalid.sh GEMMQ SOURCE_DIR: the readers and the schemas agree. From each schema
# (protocols/results.schema.json, protocols/bench.schema.json) and a valid document of its kind
# (a committed results file; a committed bench file cut to one point), schema_invalid.py makes
# one invalid example per rule of the schema that the document reaches (a wrong type, a value
# outside an enum, a const, a minimum or a maximum, a missing required key, an extra key where
# none is allowed, an empty array where items are required) and feeds each to a reader (table,
# plan, compare, merge, plot for results; bench --render for bench). Each must be refused with
# exit status 2 and a message naming the file, line and column, the JSON path of the violation
# and what was expected; the valid document must be accepted.
set -u
exec python3 "$2/tests/verdict/schema_invalid.py" "$1" "$2"
