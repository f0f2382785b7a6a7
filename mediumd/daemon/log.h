/* log: leveled messages to stderr, "mediumd: LEVEL: text". */
#ifndef MEDIUMD_LOG_H
#define MEDIUMD_LOG_H

enum log_level { LOGL_ERROR, LOGL_WARN, LOGL_INFO, LOGL_DEBUG };

extern enum log_level log_threshold;

/* Parse "error|warn|info|debug"; -EINVAL if unknown. */
int log_parse_level(const char *name, enum log_level *out);
void log_msg(enum log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define log_error(...) log_msg(LOGL_ERROR, __VA_ARGS__)
#define log_warn(...) log_msg(LOGL_WARN, __VA_ARGS__)
#define log_info(...) log_msg(LOGL_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOGL_DEBUG, __VA_ARGS__)

#endif
