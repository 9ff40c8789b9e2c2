// SPDX-License-Identifier: MIT
/*
 * qpu-detect: object detection through a pipeline (<qpu_pipeline.h>):
 * frames from a V4L2 camera (imported, never copied), a Y4M video, a raw
 * NV12 file or a directory of PPM/PGM images, pre-processed, run through an ONNX (or .qnn) detector with a
 * YOLO-shaped head, decoded and NMS'd; detections as JSON lines, annotated
 * frames as PNG, a per-stage table of latencies while it runs.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "qpu.h"
#include "qpu_nn.h"
#include "qpu_pipeline.h"
#include "camera_source.h"
#include "cli.h"
#include "die.h"
#include "nn_model.h"
#include "open_dev.h"
#include "parse_num.h"
#include "png.h"
#ifdef QPU_DETECT_MQTT
#include "qpu_mqtt.h"
#endif

const char tool_name[] = "qpu-detect";

#define MAX_IMAGES	100000
#define LIVE_EVERY_NS	500000000ull
/* boxes kept per frame */
#define MAX_BOXES	100
/* the longest wait for a camera's frame */
#define CAMERA_TIMEOUT_MS	5000

struct opts {
	const char *device;
	const char *model;
	const char *out;
	const char *input;
	const char *camera;		/* --camera: a V4L2 node, in place of INPUT */
	uint32_t camera_fourcc;
	unsigned int camera_buffers;
	uint64_t frames;
	unsigned int width;
	unsigned int height;
	unsigned int anchors;
	unsigned int in_flight;
	float score;
	float iou;
	int cpu;
	int bench;
	int quiet;
#ifdef QPU_DETECT_MQTT
	struct qpu_mqtt_opts mqtt;	/* --mqtt: publish (tools/fleet) */
#endif
};

/* Where frames come from: one file (Y4M, NV12) or a list of images. */
struct source {
	enum { SRC_Y4M, SRC_NV12, SRC_IMAGES } kind;
	FILE *f;
	char **images;
	size_t image_count;
	size_t next;
	enum qpu_pipeline_format format;
	unsigned int width;
	unsigned int height;
};

struct sink_ctx {
	const struct opts *o;
	FILE *json;
	uint8_t *rgb;
	unsigned int width;
	unsigned int height;
	uint64_t boxes;
	int failed_io;
	/* the pipeline's stage names, for each frame's "stages" */
	const char *stage_names[QPU_PIPELINE_MAX_STAGES];
	struct camera_source *cam;	/* --camera */
#ifdef QPU_DETECT_MQTT
	struct qpu_mqtt *mqtt;
#endif
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: qpu-detect -m MODEL [options] INPUT\n"
		"       qpu-detect -m MODEL --camera /dev/videoN [options]\n"
		"INPUT is a Y4M video (4:2:0), a raw NV12 file (with --size), or a\n"
		"directory of PPM (P6) or PGM (P5) images, read in name order.\n"
		"options:\n"
		"      --camera DEV    frames from a V4L2 capture node: its own buffers,\n"
		"                      imported into the device, never copied\n"
		"      --camera-format F  " CAMERA_FORMAT_NAMES " (NV12)\n"
		"      --camera-buffers N the camera's buffers, at least in-flight + 2\n"
		"                      (the default)\n"
		"  -m, --model FILE    the detector: .onnx (converted through python3-onnx)\n"
		"                      or .qnn; one float input [1,3,H,W], one output\n"
		"                      [1, A*(5+C), GH, GW] after a sigmoid\n"
		"  -d, --device PATH   emu, /dev/qpu..., v3d, cpu; default: $QPU_DEVICE,\n"
		"                      else /dev/qpu\n"
		"      --cpu           every stage on the CPU (no device)\n"
		"  -n, --frames N      stop after N frames\n"
		"  -o, --out DIR       write DIR/detections.jsonl and DIR/frame-NNNNNN.png;\n"
		"                      without it, JSON lines go to standard output\n"
		"      --bench         no detections written: the table and the pipeline's\n"
		"                      figures as JSON at the end\n"
		"  -s, --size WxH      the frame size of a raw NV12 file or the camera\n"
		"                      (640x480)\n"
		"  -a, --anchors N     boxes per cell in the head (1)\n"
		"      --score T       score threshold (0.5)\n"
		"      --iou T         NMS overlap threshold (0.45)\n"
		"  -j, --in-flight N   frames in flight, 1 to 16 (3)\n"
		"  -q, --quiet         no table\n"
#ifdef QPU_DETECT_MQTT
		QPU_MQTT_OPTIONS_HELP
#endif
		"  -h, --help          this text\n"
		"  -V, --version       the version\n");
}

static float parse_fraction(const char *s, const char *what)
{
	char *end;
	float v;

	errno = 0;
	v = strtof(s, &end);
	if (errno || end == s || *end || !(v >= 0 && v <= 1))
		usage_error(2, "%s: '%s' is not a number from 0 to 1", what, s);
	return v;
}

static void parse_size(const char *s, unsigned int *w, unsigned int *h)
{
	char *end;
	unsigned long a, b;

	errno = 0;
	a = strtoul(s, &end, 10);
	if (errno || end == s || *end != 'x')
		usage_error(2, "--size: '%s' is not WIDTHxHEIGHT", s);
	s = end + 1;
	b = strtoul(s, &end, 10);
	if (errno || end == s || *end || !a || !b || a > 8192 || b > 8192)
		usage_error(2, "--size: '%s' is not WIDTHxHEIGHT (1 to 8192 each)", s);
	*w = (unsigned int)a;
	*h = (unsigned int)b;
}

static int has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n > m && !strcasecmp(s + n - m, suffix);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A PPM/PGM header: its format and size; the file is left at the pixels. */
static int pnm_header(FILE *f, enum qpu_pipeline_format *fmt, unsigned int *w, unsigned int *h)
{
	char magic[3] = "";
	unsigned int maxval;

	if (fscanf(f, "%2s", magic) != 1)
		return -1;
	if (!strcmp(magic, "P6"))
		*fmt = QPU_PIPELINE_RGB24;
	else if (!strcmp(magic, "P5"))
		*fmt = QPU_PIPELINE_GRAY8;
	else
		return -1;
	/* Comments between the fields. */
	for (int i = 0; i < 3; i++) {
		int c;

		while ((c = fgetc(f)) == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '#')
			if (c == '#')
				while ((c = fgetc(f)) != '\n' && c != EOF)
					;
		ungetc(c, f);
		if (fscanf(f, "%u", i == 0 ? w : i == 1 ? h : &maxval) != 1)
			return -1;
	}
	if (maxval != 255 || fgetc(f) == EOF)
		return -1;
	return 0;
}

static void open_images(struct source *src, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[4096];
	FILE *f;

	if (!d)
		die("%s: %s", dir, strerror(errno));
	while ((e = readdir(d))) {
		if (!has_suffix(e->d_name, ".ppm") && !has_suffix(e->d_name, ".pgm"))
			continue;
		if (src->image_count == MAX_IMAGES)
			die("%s: more than %d images", dir, MAX_IMAGES);
		src->images = realloc(src->images, (src->image_count + 1) * sizeof(*src->images));
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (!src->images || !(src->images[src->image_count++] = strdup(path)))
			die("out of memory");
	}
	closedir(d);
	if (!src->image_count)
		die("%s: no .ppm or .pgm image", dir);
	qsort(src->images, src->image_count, sizeof(*src->images), cmp_str);
	f = fopen(src->images[0], "rb");
	if (!f || pnm_header(f, &src->format, &src->width, &src->height))
		die("%s: not a binary PPM (P6) or PGM (P5) image of 8-bit samples",
		    src->images[0]);
	fclose(f);
	src->kind = SRC_IMAGES;
}

/* "YUV4MPEG2 W640 H480 F30:1 C420jpeg ..." */
static void open_y4m(struct source *src, const char *path)
{
	char line[512], *tok, *save = NULL;

	src->f = fopen(path, "rb");
	if (!src->f)
		die("%s: %s", path, strerror(errno));
	if (!fgets(line, sizeof(line), src->f) || strncmp(line, "YUV4MPEG2 ", 10))
		die("%s: not a YUV4MPEG2 file", path);
	for (tok = strtok_r(line + 10, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save)) {
		if (tok[0] == 'W')
			src->width = (unsigned int)strtoul(tok + 1, NULL, 10);
		else if (tok[0] == 'H')
			src->height = (unsigned int)strtoul(tok + 1, NULL, 10);
		else if (tok[0] == 'C' && strncmp(tok, "C420", 4))
			die("%s: colour space %s: qpu-detect reads 4:2:0 (C420, C420jpeg...) only",
			    path, tok);
	}
	src->format = QPU_PIPELINE_I420;
	src->kind = SRC_Y4M;
	if (!qpu_pipeline_frame_bytes(src->format, src->width, src->height))
		die("%s: a %ux%u frame: the size must be even, 1 to 8192 a side", path, src->width,
		    src->height);
}

static void open_source(struct source *src, const struct opts *o)
{
	struct stat st;

	if (stat(o->input, &st))
		die("%s: %s", o->input, strerror(errno));
	if (S_ISDIR(st.st_mode)) {
		if (o->width)
			usage_error(2, "--size is for a raw NV12 file, not a directory of images");
		open_images(src, o->input);
	} else if (has_suffix(o->input, ".y4m")) {
		if (o->width)
			usage_error(2, "--size is for a raw NV12 file; a Y4M file has its own");
		open_y4m(src, o->input);
	} else {
		if (!o->width)
			usage_error(2, "%s: a raw NV12 file needs --size WxH (or name a .y4m file)",
				    o->input);
		src->f = fopen(o->input, "rb");
		if (!src->f)
			die("%s: %s", o->input, strerror(errno));
		src->kind = SRC_NV12;
		src->format = QPU_PIPELINE_NV12;
		src->width = o->width;
		src->height = o->height;
		if (!qpu_pipeline_frame_bytes(src->format, src->width, src->height))
			usage_error(2, "--size: NV12 needs an even width and height");
	}
}

/*
 * Reads the next frame into @buf (@cap bytes): 1 with its format and size,
 * 0 at the end. An image of another size or format is read as far as it
 * fits and given with its own size, which the pipeline refuses.
 */
static int read_frame(struct source *src, void *buf, size_t cap,
		      enum qpu_pipeline_format *fmt, unsigned int *w, unsigned int *h)
{
	char line[256];
	size_t bytes;

	*fmt = src->format;
	*w = src->width;
	*h = src->height;
	switch (src->kind) {
	case SRC_Y4M:
		if (!fgets(line, sizeof(line), src->f))
			return 0;
		if (strncmp(line, "FRAME", 5))
			die("%s: a frame header is not FRAME", "y4m");
		/* fall through */
	case SRC_NV12:
		bytes = fread(buf, 1, cap, src->f);
		if (bytes == 0)
			return 0;
		if (bytes < cap)
			die("%s: the last frame is cut short (%zu of %zu bytes)", "input", bytes, cap);
		return 1;
	case SRC_IMAGES:
		if (src->next == src->image_count)
			return 0;
		{
			const char *path = src->images[src->next++];
			FILE *f = fopen(path, "rb");
			size_t want;

			if (!f || pnm_header(f, fmt, w, h))
				die("%s: not a binary PPM (P6) or PGM (P5) image of 8-bit samples", path);
			want = qpu_pipeline_frame_bytes(*fmt, *w, *h);
			if (!want)
				die("%s: a %ux%u image", path, *w, *h);
			if (fread(buf, 1, want < cap ? want : cap, f) != (want < cap ? want : cap))
				die("%s: cut short", path);
			fclose(f);
		}
		return 1;
	}
	return 0;
}

static const uint8_t label_colours[6][3] = {
	{ 255, 64, 64 }, { 64, 255, 64 }, { 64, 128, 255 },
	{ 255, 255, 64 }, { 255, 64, 255 }, { 64, 255, 255 },
};

static void draw_box(uint8_t *rgb, unsigned int w, unsigned int h, const struct qpu_pipeline_box *b)
{
	unsigned int x0 = (unsigned int)(b->x0 * (float)(w - 1)), x1 = (unsigned int)(b->x1 * (float)(w - 1));
	unsigned int y0 = (unsigned int)(b->y0 * (float)(h - 1)), y1 = (unsigned int)(b->y1 * (float)(h - 1));
	const uint8_t *c = label_colours[(unsigned int)b->label % 6];
	unsigned int x, y;

	for (x = x0; x <= x1; x++) {
		memcpy(rgb + ((size_t)y0 * w + x) * 3, c, 3);
		memcpy(rgb + ((size_t)y1 * w + x) * 3, c, 3);
	}
	for (y = y0; y <= y1; y++) {
		memcpy(rgb + ((size_t)y * w + x0) * 3, c, 3);
		memcpy(rgb + ((size_t)y * w + x1) * 3, c, 3);
	}
}

static void write_png(struct sink_ctx *s, const struct qpu_pipeline_frame *f,
		      const struct qpu_pipeline_detections *d)
{
	char path[4096];
	unsigned int i;
	FILE *out;

	if (qpu_pipeline_frame_to_rgb24(f->format, f->width, f->height, f->frame_data, s->rgb))
		return;
	for (i = 0; i < d->count; i++)
		draw_box(s->rgb, f->width, f->height, &d->boxes[i]);
	snprintf(path, sizeof(path), "%s/frame-%06" PRIu64 ".png", s->o->out, f->index);
	out = fopen(path, "wb");
	if (!out || png_write_rgb(out, s->rgb, f->width, f->height) || fclose(out)) {
		if (!s->failed_io)
			fprintf(stderr, "qpu-detect: %s: %s\n", path, strerror(errno));
		s->failed_io = 1;
	}
}

/* Whether stage @i ran frame @f (not when an earlier stage failed). */
static int stage_ran(const struct sink_ctx *s, const struct qpu_pipeline_frame *f, unsigned int i)
{
	return f->stages[i].place != QPU_PIPELINE_AUTO && s->stage_names[i];
}

#ifdef QPU_DETECT_MQTT
static uint64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * A frame's detections on qpu/STREAM/detections, boxes in pixels, with
 * each stage that ran it as its JSON line has them (put_stages()).
 */
static void publish_frame(const struct sink_ctx *s, const struct qpu_pipeline_frame *f,
			  const struct qpu_pipeline_detections *d)
{
	struct qpu_mqtt_detection det[MAX_BOXES];
	struct qpu_mqtt_stage stages[QPU_PIPELINE_MAX_STAGES];
	struct qpu_mqtt_frame fr = {
		.frame = f->index,
		.done_ns = realtime_ns(),
		.stages = stages,
		.detections = det,
	};
	unsigned int i;

	fr.capture_ns = fr.done_ns - f->latency_ns;
	for (i = 0; i < f->stage_count && i < QPU_PIPELINE_MAX_STAGES; i++) {
		const struct qpu_pipeline_stage_time *t = &f->stages[i];

		if (!stage_ran(s, f, i))
			continue;
		stages[fr.nstages++] = (struct qpu_mqtt_stage){
			.name = s->stage_names[i], .ns = t->end_ns - t->start_ns,
			.on = qpu_pipeline_place_name(t->place), .model_ns = t->model_ns,
			.recovered = (int)t->recovered,
		};
	}
	for (i = 0; !f->status && i < d->count && i < MAX_BOXES; i++) {
		const struct qpu_pipeline_box *b = &d->boxes[i];

		det[i] = (struct qpu_mqtt_detection){
			.label = NULL, .class_id = b->label, .score = b->score,
			.x = b->x0 * (float)f->width, .y = b->y0 * (float)f->height,
			.w = (b->x1 - b->x0) * (float)f->width,
			.h = (b->y1 - b->y0) * (float)f->height,
		};
	}
	fr.ndetections = i;
	qpu_mqtt_publish_frame(s->mqtt, &fr);
}

/*
 * The board's health on qpu/STREAM/health: the pipeline's telemetry
 * (qpu.ko's sample, a v3d node's firmware or thermal zone), the machine's own where the
 * device has none, and why a value is missing. The emulator and the CPU
 * path have no clock, sensor or firmware of their own: the host's
 * temperature is not theirs.
 */
static void publish_health(struct qpu_mqtt *m, struct qpu_pipeline *pl, struct qpu_dev *dev)
{
	struct qpu_pipeline_stats ps;
	struct qpu_mqtt_health h = {
		.device = dev ? qpu_dev_describe(dev) : "cpu",
		.clock_hz = -1, .temp_mc = -1, .throttled = -1,
	};
	const struct qpu_pipeline_telemetry *t = &ps.telemetry;
	const char *none = NULL;
	struct qpu_telemetry s;

	qpu_pipeline_get_stats(pl, &ps);
	/* (no source before the pipeline's first sample) */
	h.telemetry = t->source ? t->source : "none";
	h.recoveries = (int64_t)ps.recoveries;
	h.queue_depth = (int64_t)(ps.submitted - ps.delivered);
	if (t->flags & QPU_PIPELINE_TELEMETRY_CLOCK)
		h.clock_hz = (int64_t)t->clock_hz;
	if (t->flags & QPU_PIPELINE_TELEMETRY_TEMP)
		h.temp_mc = t->temp_mc;
	if (t->flags & QPU_PIPELINE_TELEMETRY_THROTTLED)
		h.throttled = t->throttled;
	if (!dev)
		none = "no device: every stage runs on the CPU";
	else if (strstr(h.device, "emulator"))
		none = "an emulated device has no clock, sensor or firmware";
	if (none) {
		h.why_clock = h.why_temp = h.why_throttled = none;
	} else {
		/* the device model's reasons; the machine's files may fill in */
		qpu_dev_get_telemetry(dev, &s);
		h.why_clock = s.why_clock ? s.why_clock : "no clock sample (yet)";
		h.why_temp = s.why_temp;
		h.why_throttled = s.why_throttled;
		qpu_mqtt_read_sys_health(&h);
	}
	qpu_mqtt_publish_health(m, &h);
}
#endif

/*
 * The frame's "stages": each stage that ran it, its time (start to end, a
 * CPU re-run included), where its result was made, and its modelled time.
 */
static void put_stages(const struct sink_ctx *s, const struct qpu_pipeline_frame *f)
{
	const char *sep = "";
	unsigned int i;

	fprintf(s->json, ",\"stages\":{");
	for (i = 0; i < f->stage_count && i < QPU_PIPELINE_MAX_STAGES; i++) {
		const struct qpu_pipeline_stage_time *t = &f->stages[i];

		if (!stage_ran(s, f, i))
			continue;
		fprintf(s->json, "%s\"%s\":{\"ms\":%.3f,\"on\":\"%s\"", sep, s->stage_names[i],
			(t->end_ns - t->start_ns) / 1e6, qpu_pipeline_place_name(t->place));
		if (t->model_ns)
			fprintf(s->json, ",\"model_ms\":%.3f", t->model_ns / 1e6);
		if (t->recovered)
			fprintf(s->json, ",\"recovered\":true");
		fprintf(s->json, "}");
		sep = ",";
	}
	fprintf(s->json, "}");
}

/* A frame's JSON line, PNG and MQTT message. */
static void sink_frame(void *ctx, const struct qpu_pipeline_frame *f)
{
	struct sink_ctx *s = ctx;
	const struct qpu_pipeline_detections *d = f->data;
	unsigned int i;

	if (!f->status)
		s->boxes += d->count;
	if (s->cam && s->o->bench)
		camera_check_frame(s->cam, f, &(uint32_t){ 0 });
#ifdef QPU_DETECT_MQTT
	if (s->mqtt)
		publish_frame(s, f, d);
#endif
	if (s->o->bench)
		return;
	fprintf(s->json, "{\"frame\":%" PRIu64 ",\"width\":%u,\"height\":%u,\"latency_ms\":%.3f",
		f->index, f->width, f->height, f->latency_ns / 1e6);
	if (f->model_ns)
		fprintf(s->json, ",\"model_ms\":%.3f", f->model_ns / 1e6);
	fprintf(s->json, ",\"recoveries\":%u", f->recoveries);
	if (s->cam) {
		uint32_t seq;

		if (camera_check_frame(s->cam, f, &seq))
			fprintf(s->json, ",\"sequence\":%u,\"imported\":true", seq);
		else
			fprintf(s->json, ",\"imported\":false");
	}
	put_stages(s, f);
	if (f->status) {
		fprintf(s->json, ",\"error\":\"");
		for (i = 0; f->error[i]; i++)
			if (f->error[i] != '"' && f->error[i] != '\\')
				fputc(f->error[i], s->json);
		fprintf(s->json, "\"}\n");
		return;
	}
	fprintf(s->json, ",\"candidates\":%u,\"detections\":[", d->candidates);
	for (i = 0; i < d->count; i++) {
		const struct qpu_pipeline_box *b = &d->boxes[i];

		fprintf(s->json, "%s{\"label\":%d,\"score\":%.4f,\"box\":[%.1f,%.1f,%.1f,%.1f]}",
			i ? "," : "", (int)b->label, b->score, b->x0 * (float)f->width,
			b->y0 * (float)f->height, b->x1 * (float)f->width, b->y1 * (float)f->height);
	}
	fprintf(s->json, "]}\n");
	fflush(s->json);
	if (s->o->out && s->rgb)
		write_png(s, f, d);
}

/* Every frame, in order, from the pipeline's last stage; a camera's
 * buffer goes back to the camera once nothing reads it. */
static void sink(void *ctx, const struct qpu_pipeline_frame *f)
{
	struct sink_ctx *s = ctx;

	sink_frame(ctx, f);
	if (s->cam)
		camera_release_frame(s->cam, f);
}

static void print_ms(FILE *out, uint64_t ns)
{
	if (ns)
		fprintf(out, " %8.3f", ns / 1e6);
	else
		fprintf(out, " %8s", "-");
}

static void print_table(FILE *out, struct qpu_pipeline *pl)
{
	struct qpu_pipeline_stats ps;
	struct qpu_pipeline_stage_stats ss;
	unsigned int i;

	qpu_pipeline_get_stats(pl, &ps);
	fprintf(out, "%-12s %-4s %7s %8s %8s %8s %8s %8s %6s  %s\n", "stage", "on", "frames",
		"p50 ms", "p90 ms", "p99 ms", "jitter", "model ms", "recov", "why");
	for (i = 0; i < ps.stage_count; i++) {
		qpu_pipeline_get_stage_stats(pl, i, &ss);
		fprintf(out, "%-12s %-4s %7" PRIu64, ss.name, qpu_pipeline_place_name(ss.place),
			ss.frames);
		print_ms(out, ss.latency.p50_ns);
		print_ms(out, ss.latency.p90_ns);
		print_ms(out, ss.latency.p99_ns);
		print_ms(out, ss.latency.jitter_ns);
		print_ms(out, ss.latency.model_ns);
		fprintf(out, " %6" PRIu64 "  %s\n", ss.recoveries, ss.why);
	}
	fprintf(out, "%-12s %-4s %7" PRIu64, "end to end", "", ps.delivered);
	print_ms(out, ps.latency.p50_ns);
	print_ms(out, ps.latency.p90_ns);
	print_ms(out, ps.latency.p99_ns);
	print_ms(out, ps.latency.jitter_ns);
	print_ms(out, ps.latency.model_ns);
	fprintf(out, " %6" PRIu64 "  %" PRIu64 " failed (%" PRIu64 " refused), telemetry: %s",
		ps.recoveries, ps.failed, ps.refused, ps.telemetry.source ? ps.telemetry.source : "none");
	if (ps.telemetry.flags & QPU_PIPELINE_TELEMETRY_CLOCK)
		fprintf(out, ", %.0f MHz", ps.telemetry.clock_hz / 1e6);
	if (ps.telemetry.flags & QPU_PIPELINE_TELEMETRY_TEMP)
		fprintf(out, ", %.1f C", ps.telemetry.temp_mc / 1e3);
	if (ps.telemetry.flags & QPU_PIPELINE_TELEMETRY_THROTTLED)
		fprintf(out, ", throttled 0x%x", ps.telemetry.throttled);
	fprintf(out, "\n");
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The model's input and output shapes: the stages' sizes. */
static void model_shapes(const char *qnn, const struct opts *o, unsigned int *in_w,
			 unsigned int *in_h, struct qpu_pipeline_detect *det)
{
	struct qpu_nn_tensor_info in, out;
	struct qpu_nn_graph *g;
	char err[512];

	g = qpu_nn_load(qnn, err, sizeof(err));
	if (!g)
		die("%s", err);
	if (qpu_nn_input_count(g) != 1 || qpu_nn_output_count(g) != 1)
		die("%s: %u inputs and %u outputs; a detector has one of each", o->model,
		    qpu_nn_input_count(g), qpu_nn_output_count(g));
	qpu_nn_input(g, 0, &in);
	qpu_nn_output(g, 0, &out);
	if (in.rank != 4 || in.dims[0] != 1 || in.dims[1] != 3 || in.dtype != QPU_NN_FLOAT32)
		die("%s: input %s is not float [1, 3, H, W]", o->model, in.name);
	if (out.rank != 4 || out.dims[0] != 1 || out.dtype != QPU_NN_FLOAT32 ||
	    out.dims[1] % o->anchors || out.dims[1] / o->anchors < 5)
		die("%s: output %s is not float [1, %u*(5+classes), GH, GW] (--anchors %u)",
		    o->model, out.name, o->anchors, o->anchors);
	*in_w = (unsigned int)in.dims[3];
	*in_h = (unsigned int)in.dims[2];
	det->grid_h = (unsigned int)out.dims[2];
	det->grid_w = (unsigned int)out.dims[3];
	det->anchors = o->anchors;
	det->classes = (unsigned int)(out.dims[1] / o->anchors - 5);
	qpu_nn_free(g);
}

static void add(struct qpu_pipeline *pl, int ret, const struct qpu_pipeline_stage *st,
		const char *err)
{
	if (ret)
		die("%s", err[0] ? err : strerror(-ret));
	if (qpu_pipeline_add_stage(pl, st))
		die("%s", qpu_pipeline_last_error(pl));
}

static void parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "model", required_argument, NULL, 'm' },
		{ "device", required_argument, NULL, 'd' },
		{ "cpu", no_argument, NULL, 'C' },
		{ "frames", required_argument, NULL, 'n' },
		{ "out", required_argument, NULL, 'o' },
		{ "bench", no_argument, NULL, 'B' },
		{ "size", required_argument, NULL, 's' },
		{ "anchors", required_argument, NULL, 'a' },
		{ "score", required_argument, NULL, 'S' },
		{ "iou", required_argument, NULL, 'I' },
		{ "in-flight", required_argument, NULL, 'j' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "camera", required_argument, NULL, 'c' },
		{ "camera-format", required_argument, NULL, 'F' },
		{ "camera-buffers", required_argument, NULL, 'b' },
#ifdef QPU_DETECT_MQTT
		QPU_MQTT_LONG_OPTIONS,
#else
		{ "mqtt", required_argument, NULL, 'M' },
#endif
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	int c;
#ifdef QPU_DETECT_MQTT
	char err[256];
	int taken;
#endif

	while ((c = getopt_long(argc, argv, "m:d:n:o:s:a:j:qhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'm':
			o->model = optarg;
			break;
		case 'd':
			o->device = optarg;
			break;
		case 'C':
			o->cpu = 1;
			break;
		case 'n':
			if (!parse_u64(optarg, 1, UINT64_MAX, &o->frames))
				usage_error(2, "--frames: '%s' is not a count of frames", optarg);
			break;
		case 'o':
			o->out = optarg;
			break;
		case 'B':
			o->bench = 1;
			break;
		case 's':
			parse_size(optarg, &o->width, &o->height);
			break;
		case 'a':
			if (!parse_u64(optarg, 1, 64, &v))
				usage_error(2, "--anchors: '%s' is not 1 to 64", optarg);
			o->anchors = (unsigned int)v;
			break;
		case 'S':
			o->score = parse_fraction(optarg, "--score");
			break;
		case 'I':
			o->iou = parse_fraction(optarg, "--iou");
			break;
		case 'j':
			if (!parse_u64(optarg, 1, QPU_PIPELINE_MAX_IN_FLIGHT, &v))
				usage_error(2, "--in-flight: '%s' is not 1 to %d", optarg,
					    QPU_PIPELINE_MAX_IN_FLIGHT);
			o->in_flight = (unsigned int)v;
			break;
		case 'q':
			o->quiet = 1;
			break;
		case 'c':
			o->camera = optarg;
			break;
		case 'F':
			if (camera_format_from_name(optarg, &o->camera_fourcc))
				usage_error(2, "--camera-format: '%s' is none of %s", optarg,
					    CAMERA_FORMAT_NAMES);
			break;
		case 'b':
			if (!parse_u64(optarg, 2, 32, &v))
				usage_error(2, "--camera-buffers: '%s' is not 2 to 32", optarg);
			o->camera_buffers = (unsigned int)v;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case 'V':
			print_version();
			exit(0);
#ifdef QPU_DETECT_MQTT
		default:
			taken = qpu_mqtt_take_option(&o->mqtt, c, optarg, err, sizeof(err));
			if (taken < 0)
				usage_error(2, "%s", err);
			if (!taken)
				try_help(2);
#else
		case 'M':
			usage_error(2, "--mqtt: this qpu-detect was built without libmosquitto (tools/deps.sh fleet)");
		default:
			try_help(2);
#endif
		}
	}
	if (o->camera) {
		if (optind != argc)
			usage_error(2, "--camera takes the place of INPUT: drop %s", argv[optind]);
		if (!o->camera_buffers)
			o->camera_buffers = CAMERA_MIN_BUFFERS(o->in_flight);
		if (o->camera_buffers < CAMERA_MIN_BUFFERS(o->in_flight))
			usage_error(2, "--camera-buffers %u: %u frames in flight need at least %u (those the pipeline holds, one the camera writes, one queued)",
				    o->camera_buffers, o->in_flight, CAMERA_MIN_BUFFERS(o->in_flight));
		if (!o->camera_fourcc)
			o->camera_fourcc = QPU_CAPTURE_NV12;
		if (!o->width) {
			o->width = 640;
			o->height = 480;
		}
	} else {
		if (o->camera_fourcc || o->camera_buffers)
			usage_error(2, "--camera-format and --camera-buffers need --camera");
		if (optind + 1 != argc)
			usage_error(2, optind == argc ? "no INPUT" : "one INPUT only");
		o->input = argv[optind];
	}
	if (!o->model)
		usage_error(2, "no --model");
	if (o->cpu && o->device)
		usage_error(2, "--cpu and --device: choose one");
	if (o->camera && (o->cpu || (o->device && !strcmp(o->device, "cpu"))))
		usage_error(2, "--camera imports the camera's buffers into a device: drop --cpu");
	if (o->bench && o->out)
		usage_error(2, "--bench writes no detections: drop --out");
}

int main(int argc, char **argv)
{
	struct opts o = { .anchors = 1, .score = 0.5f, .iou = 0.45f, .in_flight = 3 };
	struct qpu_pipeline_detect det = { .max_boxes = MAX_BOXES };
	struct qpu_pipeline_preprocess pre = { .std = { 1, 1, 1 } };
	struct qpu_pipeline_config cfg = { 0 };
	struct sink_ctx sc = { .o = &o };
	struct source src = { 0 };
	struct qpu_pipeline_stage st;
	struct qpu_pipeline_input in;
	struct qpu_pipeline *pl;
	struct qpu_dev *dev = NULL;
	const char *qnn;
	char err[512] = "", path[4096];
	uint64_t n = 0, last_table = now_ns();
#ifdef QPU_DETECT_MQTT
	uint64_t last_health = now_ns();
#endif
	int live, ret;

	parse_args(argc, argv, &o);
	if (!o.camera)
		open_source(&src, &o);
	qnn = nn_model_qnn(o.model);
	model_shapes(qnn, &o, &pre.out_width, &pre.out_height, &det);
	det.score_threshold = o.score;
	det.iou_threshold = o.iou;
	if (!o.cpu && !(o.device && !strcmp(o.device, "cpu")))
		dev = open_dev(o.device);
	if (o.camera)
		sc.cam = camera_open(dev, o.camera, o.camera_fourcc, o.width, o.height,
				     o.camera_buffers, &src.format, &src.width, &src.height);

	sc.json = stdout;
	if (o.out) {
		if (mkdir(o.out, 0777) && errno != EEXIST)
			die("%s: %s", o.out, strerror(errno));
		snprintf(path, sizeof(path), "%s/detections.jsonl", o.out);
		sc.json = fopen(path, "w");
		if (!sc.json)
			die("%s: %s", path, strerror(errno));
		sc.rgb = malloc((size_t)src.width * src.height * 3);
		if (!sc.rgb)
			die("out of memory");
	}
	cfg = (struct qpu_pipeline_config){
		.dev = dev, .format = src.format, .width = src.width, .height = src.height,
		.in_flight = o.in_flight, .sink = sink, .sink_ctx = &sc,
	};
	pl = qpu_pipeline_new(&cfg);
	if (!pl)
		die("%s", qpu_last_error());
#ifdef QPU_DETECT_MQTT
	/* before the frames: an unreachable broker is an error at start */
	sc.mqtt = qpu_mqtt_open_opts(&o.mqtt, err, sizeof(err));
	if (!sc.mqtt && err[0])
		die("%s", err);
	if (sc.mqtt)
		publish_health(sc.mqtt, pl, dev);
#endif
	pre.format = src.format;
	pre.width = src.width;
	pre.height = src.height;
	ret = qpu_pipeline_stage_preprocess(dev, &pre, &st, err, sizeof(err));
	add(pl, ret, &st, err);
	ret = qpu_pipeline_stage_infer(dev, qnn, (size_t)pre.out_width * pre.out_height * 3 * 4, 0,
				       &st, err, sizeof(err));
	add(pl, ret, &st, err);
	ret = qpu_pipeline_stage_detect(&det, &st, err, sizeof(err));
	add(pl, ret, &st, err);
	ret = qpu_pipeline_start(pl);
	if (ret)
		die("%s", qpu_pipeline_last_error(pl));
	for (ret = 0; ret < QPU_PIPELINE_MAX_STAGES; ret++) {
		struct qpu_pipeline_stage_stats ss;

		if (qpu_pipeline_get_stage_stats(pl, (unsigned int)ret, &ss))
			break;
		sc.stage_names[ret] = ss.name;
	}

	live = !o.quiet && isatty(STDERR_FILENO);
	if (sc.cam)
		camera_start(sc.cam);
	while (!o.frames || n < o.frames) {
		enum qpu_pipeline_format fmt;
		unsigned int w, h;

		ret = qpu_pipeline_acquire(pl, -1, &in);
		if (ret)
			die("%s", qpu_pipeline_last_error(pl));
		if (sc.cam)
			camera_submit(sc.cam, pl, CAMERA_TIMEOUT_MS);
		else if (!read_frame(&src, in.data, in.bytes, &fmt, &w, &h))
			break;
		else
			qpu_pipeline_submit(pl, fmt, w, h, NULL);
		n++;
#ifdef QPU_DETECT_MQTT
		if (sc.mqtt && now_ns() - last_health > o.mqtt.health_interval_s * 1000000000ull) {
			last_health = now_ns();
			publish_health(sc.mqtt, pl, dev);
		}
#endif
		if (live && now_ns() - last_table > LIVE_EVERY_NS) {
			last_table = now_ns();
			fprintf(stderr, "\033[H\033[J");
			print_table(stderr, pl);
		}
	}
	qpu_pipeline_finish(pl);
#ifdef QPU_DETECT_MQTT
	if (sc.mqtt) {
		struct qpu_mqtt_stats ms;

		publish_health(sc.mqtt, pl, dev);
		/* dropped or never acknowledged: said on stderr, and in the exit status */
		if (qpu_mqtt_close(sc.mqtt, 10000, &ms) || ms.dropped)
			sc.failed_io = 1;
	}
#endif
	if (!o.quiet)
		print_table(o.bench ? stdout : stderr, pl);
	if (sc.cam) {
		camera_print_summary(sc.cam, stderr);
		camera_close(sc.cam);
	}
	if (o.bench) {
		char json[8192];

		qpu_pipeline_stats_json(pl, json, sizeof(json));
		printf("%s\n", json);
	}
	if (sc.json != stdout && fclose(sc.json))
		die("%s: %s", o.out, strerror(errno));
	qpu_pipeline_free(pl);
	qpu_dev_close(dev);
	free(sc.rgb);
	if (src.f)
		fclose(src.f);
	for (size_t i = 0; i < src.image_count; i++)
		free(src.images[i]);
	free(src.images);
	return sc.failed_io;
}
