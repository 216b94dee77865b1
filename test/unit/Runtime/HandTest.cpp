//===- HandTest.cpp ---===//
#include "TestUtil.h"
