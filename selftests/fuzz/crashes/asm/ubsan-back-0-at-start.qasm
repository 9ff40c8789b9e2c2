.back 0
.endb
