//===- NpyTest.cpp ---===//
#include "TestUtil.h"
