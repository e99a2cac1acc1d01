/* cli.c: see cli.h. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

#include "device.h"
#include "protocol.h"
#include "registry.h"

/* Open name and close it again. */
static gq_status open_once(const char *name, gq_error *err)
{
	gemmq_program *prog = NULL;
	gq_status s = gq_program_open(name, &prog, err);
	if (s == GQ_OK)
		gq_program_close(prog);
	return s;
}

gq_status gq_cli_open_programs(const gq_protocol *proto, const char *const *programs, int count,
                               gq_error *err)
{
	gq_status s = GQ_OK;
	for (int i = 0; i < count && s == GQ_OK; i++)
		s = open_once(programs[i], err);
	for (int a = 0; count == 0 && a < GQ_ARM_COUNT && s == GQ_OK; a++)
		for (int op = 0; op < GQ_OP_COUNT && s == GQ_OK; op++)
			if (proto->arms[a][op])
				s = open_once(proto->arms[a][op], err);
	for (int g = 0; count == 0 && g < proto->group_count && s == GQ_OK; g++)
		for (int op = 0; op < GQ_OP_COUNT && s == GQ_OK; op++)
			if (proto->groups[g].candidate[op])
				s = open_once(proto->groups[g].candidate[op], err);
	return s;
}

gq_status gq_cli_read_protocol(const char *path, int host, gq_protocol *proto, gq_error *err)
{
	if (path)
		return gq_protocol_load(path, proto, err);
	if (host)
		return gq_protocol_parse(gq_embedded_smoke_host, gq_embedded_smoke_host_size,
		                         "<embedded smoke-host>", proto, err);
	return gq_protocol_parse(gq_embedded_smoke, gq_embedded_smoke_size, "<embedded smoke>",
	                         proto, err);
}

gq_status gq_cli_load_protocol(const char *path, const gq_device *dev, const char *const *programs,
                               int count, gq_protocol *proto, gq_error *err)
{
	gq_status s = gq_cli_read_protocol(path, dev->is_host, proto, err);
	if (s != GQ_OK)
		return s;
	s = gq_cli_open_programs(proto, programs, count, err);
	if (s != GQ_OK)
		gq_protocol_free(proto);
	return s;
}
