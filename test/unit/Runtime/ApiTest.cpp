//===- ApiTest.cpp ---===//
#include "TestUtil.h"
