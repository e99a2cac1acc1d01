/* test_jschema.c: the JSON Schema subset of jschema.h: each keyword accepts what it should,
 * rejects what it should with the path of the value, and a keyword outside the subset is an
 * error of the schema rather than silently ignored. */
#include <jansson.h>
#include <string.h>

#include "check.h"
#include "jschema.h"

static int errors(const char *schema_text, const char *doc_text, char *report, size_t size)
{
	json_t *schema = json_loads(schema_text, 0, NULL);
	json_t *doc = json_loads(doc_text, JSON_DECODE_ANY, NULL);
	CHECK_MSG(schema && doc, "bad test JSON: %s / %s", schema_text, doc_text);
	int n = schema && doc ? gq_jschema_validate(schema, doc, report, size) : -1;
	json_decref(schema);
	json_decref(doc);
	return n;
}

int main(void)
{
	char r[2048];
	const char *obj = "{\"type\": \"object\", \"required\": [\"a\"], \"additionalProperties\": "
	                  "false, \"properties\": {\"a\": {\"type\": \"integer\", \"minimum\": 1}, "
	                  "\"b\": {\"type\": [\"string\", \"null\"]}, \"c\": {\"type\": \"array\", "
	                  "\"minItems\": 1, \"items\": {\"enum\": [\"x\", \"y\"]}}}}";
	CHECK(errors(obj, "{\"a\": 3, \"b\": null, \"c\": [\"x\", \"y\"]}", r, sizeof(r)) == 0);
	CHECK(errors(obj, "{\"a\": 3.0}", r, sizeof(r)) == 0); /* an integral real is an integer */
	CHECK(errors(obj, "{\"b\": \"s\"}", r, sizeof(r)) == 1 &&
	      strstr(r, "$: expected the key \"a\", found no such key"));
	CHECK(errors(obj, "{\"a\": 0}", r, sizeof(r)) == 1 &&
	      strstr(r, "$.a: expected at least 1, found the integer 0"));
	CHECK(errors(obj, "{\"a\": 1.5}", r, sizeof(r)) == 1 && strstr(r, "$.a: expected type \"integer\", found the number 1.5"));
	CHECK(errors(obj, "{\"a\": 1, \"z\": 1}", r, sizeof(r)) == 1 &&
	      strstr(r, "$.z: expected only the keys the schema names here, found the key \"z\""));
	CHECK(errors(obj, "{\"a\": 1, \"c\": [\"x\", \"w\"]}", r, sizeof(r)) == 1 &&
	      strstr(r, "$.c[1]: expected one of [\"x\",\"y\"], found the string \"w\""));
	CHECK(errors(obj, "{\"a\": 1, \"c\": []}", r, sizeof(r)) == 1 && strstr(r, "$.c: expected at least 1 items, found 0"));
	CHECK(errors(obj, "[1]", r, sizeof(r)) == 1 && strstr(r, "$: expected type \"object\", found an array [1]"));

	const char *refs = "{\"$defs\": {\"n\": {\"type\": \"number\", \"maximum\": 2}}, \"type\": "
	                   "\"object\", \"additionalProperties\": {\"$ref\": \"#/$defs/n\"}, "
	                   "\"properties\": {\"k\": {\"const\": 1}}}";
	CHECK(errors(refs, "{\"k\": 1, \"p\": 2, \"q\": 0.5}", r, sizeof(r)) == 0);
	CHECK(errors(refs, "{\"k\": 2, \"p\": 3}", r, sizeof(r)) == 2 &&
	      strstr(r, "$.k: expected 1, found the integer 2") && strstr(r, "$.p: expected at most 2, found the integer 3"));
	CHECK(errors("{\"$ref\": \"#/definitions/x\"}", "1", r, sizeof(r)) == 1 &&
	      strstr(r, "unresolved $ref"));
	/* Outside the subset: refused, not ignored. */
	CHECK(errors("{\"type\": \"string\", \"pattern\": \"^a\"}", "\"b\"", r, sizeof(r)) == 1 &&
	      strstr(r, "keyword \"pattern\""));
	/* Annotations are skipped. */
	CHECK(errors("{\"title\": \"t\", \"description\": \"d\", \"$comment\": \"c\", \"type\": "
	             "\"boolean\"}",
	             "true", r, sizeof(r)) == 0);
	/* Many violations: the count is exact, the report bounded. */
	CHECK(errors("{\"type\": \"array\", \"items\": {\"type\": \"string\"}}",
	             "[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25]", r,
	             sizeof(r)) == 25 &&
	      strstr(r, "and 5 more"));
	return gq_check_exit("test_jschema");
}
