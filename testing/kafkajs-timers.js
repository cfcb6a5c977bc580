// A test that talks to the broker with kafkajs itself gets the same fix of kafkajs's idle
// connection timer as the services (see libs/runtime/src/kafkajsRequestQueue.ts): without it
// each connection wakes every millisecond and Node warns of a negative timeout.
require('../libs/runtime/src/kafkajsRequestQueue').fixKafkajsIdleTimers();
