package restmapper

// ContentETag exports contentETag to the tests.
var ContentETag = contentETag
